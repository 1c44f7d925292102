-- labgen: job lake_consistency_audit (batch)
-- Counts the Fluss union table (Fluss + Paimon) and the Iceberg table and
-- writes one audit row to Kafka. Relies on the tables that order_wide.sql
-- creates: prove both in one run, order_wide.sql first.
SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'lake_consistency_audit';

CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'hadoop',
  'warehouse' = 'file:///warehouse/iceberg'
);

CREATE TEMPORARY TABLE lake_consistency_audit (
  audit_time         TIMESTAMP(3),
  paimon_fluss_count BIGINT,
  iceberg_count      BIGINT,
  count_delta        BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'lake-consistency-audit',
  'properties.bootstrap.servers' = 'kafka:19092',
  'format' = 'json'
);

INSERT INTO lake_consistency_audit
SELECT
  CURRENT_TIMESTAMP AS audit_time,
  f.cnt AS paimon_fluss_count,
  i.cnt AS iceberg_count,
  f.cnt - i.cnt AS count_delta
FROM (SELECT COUNT(*) AS cnt FROM fluss_catalog.lab.dwd_order_wide) f
CROSS JOIN (SELECT COUNT(*) AS cnt FROM iceberg_catalog.lab.dwd_order_wide) i;
