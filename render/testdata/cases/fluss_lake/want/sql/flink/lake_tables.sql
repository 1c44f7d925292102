-- Rendered by labgen from the lab "fluss_lake". Do not edit: change the lab and render again.
-- The lab's lake tables. Jobs only name them: Fluss refuses CREATE TABLE
-- IF NOT EXISTS once a table's Paimon table holds data, so each table is
-- created once, before the jobs, and only where its catalog lacks it (labgen
-- run asks the SQL gateway, scripts/flink-jobs.sh the SQL client). Each
-- CREATE TABLE follows a line "-- lake table: <catalog>.<database>.<table>".

-- Fluss, tiered into paimon by the tiering service.
CREATE CATALOG fluss_catalog WITH (
  'type' = 'fluss',
  'bootstrap.servers' = 'coordinator-server:9123'
);
CREATE DATABASE IF NOT EXISTS fluss_catalog.`lake`;

-- lake table: fluss_catalog.lake.clicks_lake
CREATE TABLE IF NOT EXISTS fluss_catalog.`lake`.`clicks_lake` (
  `click_id` BIGINT NOT NULL,
  `page` STRING NOT NULL,
  PRIMARY KEY (`click_id`) NOT ENFORCED
)
WITH (
  'table.datalake.enabled' = 'true',
  'table.datalake.freshness' = '30 s'
);
