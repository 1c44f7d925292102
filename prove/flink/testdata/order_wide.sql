-- labgen: job order_wide (streaming)
-- Sample resembling what labgen renders for the seed lab's streaming job:
-- MySQL CDC (orders, payments) -> LEFT JOIN -> Kafka (upsert), Fluss (+ Paimon
-- tiering), Iceberg; one job through a statement set.
SET 'execution.runtime-mode' = 'streaming';
SET 'pipeline.name' = 'order_wide';
SET 'table.exec.state.ttl' = '1 h';

CREATE TEMPORARY TABLE orders (
  order_id     BIGINT,
  category     VARCHAR(32),
  order_amount DECIMAL(12,2),
  order_status VARCHAR(16),
  created_at   TIMESTAMP(3),
  updated_at   TIMESTAMP(3),
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
  'server-time-zone' = 'UTC',
  'scan.startup.mode' = 'initial'
);

CREATE TEMPORARY TABLE payments (
  payment_id     BIGINT,
  order_id       BIGINT,
  payment_status VARCHAR(16),
  paid_amount    DECIMAL(12,2),
  created_at     TIMESTAMP(3),
  updated_at     TIMESTAMP(3),
  PRIMARY KEY (payment_id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc',
  'hostname' = 'mysql',
  'port' = '3306',
  'username' = 'flink_cdc',
  'password' = 'flink_cdc_pw',
  'database-name' = 'shop',
  'table-name' = 'payments',
  'server-id' = '5405-5408',
  'server-time-zone' = 'UTC',
  'scan.startup.mode' = 'initial'
);

CREATE TEMPORARY TABLE dwd_order_wide (
  order_id       BIGINT,
  category       VARCHAR(32),
  order_amount   DECIMAL(12,2),
  order_status   VARCHAR(16),
  payment_status VARCHAR(16),
  paid_amount    DECIMAL(12,2),
  created_at     TIMESTAMP(3),
  updated_at     TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'dwd-order-wide',
  'properties.bootstrap.servers' = 'kafka:19092',
  'key.format' = 'json',
  'value.format' = 'json',
  'value.fields-include' = 'ALL'
);

CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE DATABASE IF NOT EXISTS fluss_catalog.lab;
-- Fluss 0.9 has no VARCHAR(n) (only STRING and CHAR(n)): string columns are STRING here.
CREATE TABLE IF NOT EXISTS fluss_catalog.lab.dwd_order_wide (
  order_id       BIGINT,
  category       STRING      ,
  order_amount   DECIMAL(12,2),
  order_status   STRING      ,
  payment_status STRING      ,
  paid_amount    DECIMAL(12,2),
  created_at     TIMESTAMP(3),
  updated_at     TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'table.datalake.enabled' = 'true',
  'table.datalake.freshness' = '30s'
);

CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'hadoop',
  'warehouse' = 'file:///warehouse/iceberg'
);
CREATE DATABASE IF NOT EXISTS iceberg_catalog.lab;
CREATE TABLE IF NOT EXISTS iceberg_catalog.lab.dwd_order_wide (
  order_id       BIGINT,
  category       VARCHAR(32),
  order_amount   DECIMAL(12,2),
  order_status   VARCHAR(16),
  payment_status VARCHAR(16),
  paid_amount    DECIMAL(12,2),
  created_at     TIMESTAMP(3),
  updated_at     TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'format-version' = '2',
  'write.upsert.enabled' = 'true'
);

-- the wide row: the later of both sides' updated_at, so that a paid version
-- outranks the pending one; a string with a ';' inside must not split.
CREATE TEMPORARY VIEW order_wide AS
SELECT
  o.order_id,
  o.category,
  o.order_amount,
  o.order_status,
  COALESCE(p.payment_status, 'PENDING') AS payment_status,  -- 'NONE; yet' would be fine too
  p.paid_amount,
  o.created_at,
  GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)) AS updated_at
FROM orders o
LEFT JOIN payments p ON o.order_id = p.order_id;

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO dwd_order_wide SELECT * FROM order_wide;
  INSERT INTO fluss_catalog.lab.dwd_order_wide SELECT * FROM order_wide;
  INSERT INTO iceberg_catalog.lab.dwd_order_wide SELECT * FROM order_wide;
END;
