-- labgen: deliberately broken Fluss DDL, caught without a Fluss server:
-- VARCHAR(n) is not a Fluss type, and 'table.datalake.freshnes' is not a
-- Fluss table property (the coordinator's own validation rejects it).
SET 'execution.runtime-mode' = 'streaming';

CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE DATABASE IF NOT EXISTS fluss_catalog.lab;

CREATE TABLE IF NOT EXISTS fluss_catalog.lab.bad_type (
  order_id BIGINT,
  category VARCHAR(32),
  PRIMARY KEY (order_id) NOT ENFORCED
);

CREATE TABLE IF NOT EXISTS fluss_catalog.lab.bad_option (
  order_id BIGINT,
  category STRING,
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'table.datalake.enabled' = 'true',
  'table.datalake.freshnes' = '30s'
);
