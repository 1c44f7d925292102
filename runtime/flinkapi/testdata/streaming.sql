-- A streaming job like the lab's order_wide: an unbounded source into a
-- sink, checkpointed. Recorded against a MiniCluster, so datagen and
-- blackhole stand in for the CDC source and the Kafka sink.
SET 'execution.runtime-mode' = 'streaming';
CREATE TABLE orders_gen (
  order_id BIGINT,
  category STRING,
  amount   DECIMAL(12, 2)
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '20',
  'fields.order_id.min' = '1',
  'fields.order_id.max' = '1000000',
  'fields.category.length' = '8'
);
CREATE TABLE wide_sink (
  order_id BIGINT,
  category STRING,
  amount   DECIMAL(12, 2)
) WITH ('connector' = 'blackhole');
INSERT INTO wide_sink SELECT order_id, category, amount FROM orders_gen;
