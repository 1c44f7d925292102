-- Rendered by labgen from the lab "postgres_source". Do not edit: change the lab and render again.

CREATE TABLE IF NOT EXISTS "items" (
  "item_id" BIGINT NOT NULL,
  "name" VARCHAR(32) NOT NULL,
  "price" NUMERIC(10,2) NOT NULL,
  "created_at" TIMESTAMP(3) NOT NULL,
  PRIMARY KEY ("item_id")
);
ALTER TABLE "items" REPLICA IDENTITY FULL;

-- What Flink's CDC sources read (pgoutput).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'labgen_cdc') THEN
    CREATE PUBLICATION labgen_cdc FOR TABLE "items";
  END IF;
END
$$;
