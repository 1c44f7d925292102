-- Rendered by labgen from the lab "postgres_source". Do not edit: change the lab and render again.
-- Job copy (streaming).

SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'copy';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';

-- items, read from PostgreSQL's write-ahead log (CDC, pgoutput).
CREATE TEMPORARY TABLE `items` (
  `item_id` BIGINT NOT NULL,
  `name` VARCHAR(32) NOT NULL,
  `price` DECIMAL(10,2) NOT NULL,
  `created_at` TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (`item_id`) NOT ENFORCED
)
WITH (
  'connector' = 'postgres-cdc',
  'hostname' = 'postgres',
  'port' = '5432',
  'username' = '${POSTGRES_CDC_USER}',
  'password' = '${POSTGRES_CDC_PASSWORD}',
  'database-name' = 'src',
  'schema-name' = 'public',
  'table-name' = 'items',
  'slot.name' = 'labgen_copy_items',
  'decoding.plugin.name' = 'pgoutput',
  'debezium.publication.name' = 'labgen_cdc',
  'debezium.publication.autocreate.mode' = 'disabled',
  'scan.incremental.snapshot.enabled' = 'true',
  'scan.startup.mode' = 'initial'
);

-- items_copy, written to the Kafka topic items-copy (upsert: one key, many versions).
CREATE TEMPORARY TABLE `items_copy` (
  `item_id` BIGINT NOT NULL,
  `name` VARCHAR(32) NOT NULL,
  `price` DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (`item_id`) NOT ENFORCED
)
WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'items-copy',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL',
  'value.json.encode.decimal-as-plain-number' = 'true'
);

-- The job's query.
CREATE TEMPORARY VIEW `copy_result` AS
SELECT item_id, name, price FROM items;

INSERT INTO `items_copy`
SELECT `item_id`, `name`, `price`
FROM `copy_result`;
