-- Rendered by labgen from the lab "paimon_lake". Do not edit: change the lab and render again.
-- Job keep (streaming).

SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'keep';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';
-- Paimon's sink refuses Flink's upsert materializer; its primary key merges the changes (for every sink of this job).
SET 'table.exec.sink.upsert-materialize' = 'NONE';

-- clicks, read from the Kafka topic clicks (upsert: one key, many versions).
CREATE TEMPORARY TABLE `clicks` (
  `click_id` BIGINT NOT NULL,
  `page` VARCHAR(64) NOT NULL,
  PRIMARY KEY (`click_id`) NOT ENFORCED
)
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL',
  'value.json.encode.decimal-as-plain-number' = 'true',
  'properties.group.id' = 'flink-keep'
);

-- Paimon, a filesystem catalog on the shared warehouse volume; commits a snapshot on checkpoints.
CREATE CATALOG paimon_catalog WITH (
  'type' = 'paimon',
  'warehouse' = 'file:///warehouse/paimon-direct'
);
CREATE DATABASE IF NOT EXISTS paimon_catalog.`lake`;
-- paimon_catalog.`lake`.`clicks_lake` is created by lake_tables.sql.

-- The job's query.
CREATE TEMPORARY VIEW `keep_result` AS
SELECT click_id, page FROM clicks;

INSERT INTO paimon_catalog.`lake`.`clicks_lake`
SELECT `click_id`, `page`
FROM `keep_result`;
