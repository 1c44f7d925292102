-- Rendered by labgen from the lab "batch_loop". Do not edit: change the lab and render again.
-- Job totals (batch).

SET 'execution.runtime-mode' = 'batch';
SET 'pipeline.name' = 'totals';
SET 'parallelism.default' = '1';
SET 'table.dml-sync' = 'true';

-- Iceberg, a hadoop catalog on the shared warehouse volume; commits on checkpoints.
CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'hadoop',
  'warehouse' = 'file:///warehouse/iceberg',
  'property-version' = '1'
);
CREATE DATABASE IF NOT EXISTS iceberg_catalog.`lab`;
-- iceberg_catalog.`lab`.`clicks_lake` is created by lake_tables.sql.

-- click_totals, written to the Kafka topic click-totals (upsert: one key, many versions).
CREATE TEMPORARY TABLE `click_totals` (
  `computed_at` TIMESTAMP(3) NOT NULL,
  `clicks` BIGINT NOT NULL,
  PRIMARY KEY (`computed_at`) NOT ENFORCED
)
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'click-totals',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL',
  'value.json.encode.decimal-as-plain-number' = 'true'
);

-- The job's query.
CREATE TEMPORARY VIEW `totals_result` AS
SELECT CAST(LOCALTIMESTAMP AS TIMESTAMP(3)) AS computed_at, COUNT(*) AS clicks FROM iceberg_catalog.lab.clicks_lake;

INSERT INTO `click_totals`
SELECT `computed_at`, `clicks`
FROM `totals_result`;
