-- Rendered by labgen from the lab "kafka_upsert_sink". Do not edit: change the lab and render again.
-- Job count (streaming).

SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'count';
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
  'properties.group.id' = 'flink-count'
);

-- page_clicks, written to the Kafka topic page-clicks (upsert: one key, many versions).
CREATE TEMPORARY TABLE `page_clicks` (
  `page` VARCHAR(64) NOT NULL,
  `clicks` BIGINT NOT NULL,
  PRIMARY KEY (`page`) NOT ENFORCED
)
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'page-clicks',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL',
  'value.json.encode.decimal-as-plain-number' = 'true'
);

-- The job's query.
CREATE TEMPORARY VIEW `count_result` AS
SELECT page, COUNT(*) AS clicks FROM clicks GROUP BY page;

INSERT INTO `page_clicks`
SELECT `page`, `clicks`
FROM `count_result`;
