-- Rendered by labgen from the lab "fluss_lake". Do not edit: change the lab and render again.
-- Job keep (streaming).

SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'keep';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';

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

-- Fluss, tiered into paimon by the tiering service.
CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE DATABASE IF NOT EXISTS fluss_catalog.`lake`;
-- fluss_catalog.`lake`.`clicks_lake` is created by lake_tables.sql.

-- The job's query.
CREATE TEMPORARY VIEW `keep_result` AS
SELECT click_id, page FROM clicks;

INSERT INTO fluss_catalog.`lake`.`clicks_lake`
SELECT `click_id`, `page`
FROM `keep_result`;
