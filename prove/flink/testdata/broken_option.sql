-- labgen: deliberately broken (a wrong connector option) to show that a
-- failure carries Flink's own message and the file:line of the statement.
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY TABLE orders (
  order_id   BIGINT,
  updated_at TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc',
  'hostname' = 'mysql',
  'port' = '3306',
  'username' = 'flink_cdc',
  'password' = 'flink_cdc_pw',
  'database-name' = 'shop',
  'table-name' = 'orders',
  'server-id' = '5401-5404',
  'server-timezone' = 'UTC'
);

CREATE TEMPORARY TABLE sink (
  order_id   BIGINT,
  updated_at TIMESTAMP(3)
) WITH ('connector' = 'blackhole');

INSERT INTO sink SELECT order_id, updated_at FROM orders;

-- and a parse error, reported with the file's line and column
INSERT INTO sink SELECT order_id updated_at FROM orders WHERE;
