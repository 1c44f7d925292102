-- A bounded job like the lab's hourly_sales: batch mode, and the INSERT
-- waits until the job has finished (table.dml-sync).
SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE TABLE orders_bounded (
  order_id BIGINT,
  category STRING,
  amount   DECIMAL(12, 2)
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '500',
  'fields.category.length' = '1'
);
CREATE TABLE hourly_sink (
  category STRING,
  order_count BIGINT,
  gmv DECIMAL(38, 2)
) WITH ('connector' = 'blackhole');
INSERT INTO hourly_sink
SELECT category, COUNT(*), SUM(amount) FROM orders_bounded GROUP BY category;
