-- Rendered by labgen from the lab "event_time". Do not edit: change the lab and render again.
-- Job windows (streaming).

SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'windows';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';

-- clicks, read from the Kafka topic clicks (upsert: one key, many versions).
CREATE TEMPORARY TABLE `clicks` (
  `click_id` BIGINT NOT NULL,
  `page` VARCHAR(64) NOT NULL,
  `clicked_at` TIMESTAMP(3) NOT NULL,
  WATERMARK FOR `clicked_at` AS `clicked_at` - INTERVAL '2' SECOND,
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
  'properties.group.id' = 'flink-windows'
);

-- page_windows, written to the Kafka topic page-windows (upsert: one key, many versions).
CREATE TEMPORARY TABLE `page_windows` (
  `page` VARCHAR(64) NOT NULL,
  `window_start` TIMESTAMP(3) NOT NULL,
  `window_end` TIMESTAMP(3) NOT NULL,
  `clicks` BIGINT NOT NULL,
  PRIMARY KEY (`page`, `window_start`) NOT ENFORCED
)
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'page-windows',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL',
  'value.json.encode.decimal-as-plain-number' = 'true'
);

-- The job's query.
CREATE TEMPORARY VIEW `windows_result` AS
SELECT page, window_start, window_end, COUNT(*) AS clicks FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(clicked_at), INTERVAL '10' SECOND)) GROUP BY page, window_start, window_end;

INSERT INTO `page_windows`
SELECT `page`, `window_start`, `window_end`, `clicks`
FROM `windows_result`;
