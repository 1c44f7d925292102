-- labgen: job paimon_lake_check (batch)
-- Reads the lake side of the Fluss table two ways (Fluss's `$lake` table and a
-- Paimon filesystem catalog on the same warehouse) and keeps a history in a
-- Paimon table. Relies on order_wide.sql having created the Fluss table.
SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';

CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE CATALOG paimon_catalog WITH (
  'type' = 'paimon',
  'warehouse' = 'file:///warehouse/paimon'
);
CREATE DATABASE IF NOT EXISTS paimon_catalog.audit;
CREATE TABLE IF NOT EXISTS paimon_catalog.audit.lake_counts (
  checked_at   TIMESTAMP(3),
  source       STRING,
  row_count    BIGINT,
  PRIMARY KEY (checked_at, source) NOT ENFORCED
) WITH (
  'bucket' = '1'
);

INSERT INTO paimon_catalog.audit.lake_counts
SELECT CURRENT_TIMESTAMP, 'fluss$lake', COUNT(*) FROM fluss_catalog.lab.`dwd_order_wide$lake`
UNION ALL
SELECT CURRENT_TIMESTAMP, 'paimon', COUNT(*) FROM paimon_catalog.lab.dwd_order_wide;
