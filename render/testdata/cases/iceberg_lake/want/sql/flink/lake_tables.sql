-- Rendered by labgen from the lab "iceberg_lake". Do not edit: change the lab and render again.
-- The lab's lake tables. Jobs only name them: Fluss refuses CREATE TABLE
-- IF NOT EXISTS once a table's Paimon table holds data, so each table is
-- created once, before the jobs, and only where its catalog lacks it (labgen
-- run asks the SQL gateway, scripts/flink-jobs.sh the SQL client). Each
-- CREATE TABLE follows a line "-- lake table: <catalog>.<database>.<table>".

-- Iceberg, a hadoop catalog on the shared warehouse volume; commits on checkpoints.
CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'hadoop',
  'warehouse' = 'file:///warehouse/iceberg',
  'property-version' = '1'
);
CREATE DATABASE IF NOT EXISTS iceberg_catalog.`lake`;

-- lake table: iceberg_catalog.lake.clicks_lake
CREATE TABLE IF NOT EXISTS iceberg_catalog.`lake`.`clicks_lake` (
  `click_id` BIGINT NOT NULL,
  `page` VARCHAR(64) NOT NULL,
  PRIMARY KEY (`click_id`) NOT ENFORCED
)
WITH (
  'format-version' = '2',
  'write.upsert.enabled' = 'true'
);
