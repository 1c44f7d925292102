-- Rendered by labgen from the lab "paimon_lake". Do not edit: change the lab and render again.
-- The lab's lake tables. Jobs only name them: Fluss refuses CREATE TABLE
-- IF NOT EXISTS once a table's Paimon table holds data, so each table is
-- created once, before the jobs, and only where its catalog lacks it (labgen
-- run asks the SQL gateway, scripts/flink-jobs.sh the SQL client). Each
-- CREATE TABLE follows a line "-- lake table: <catalog>.<database>.<table>".

-- Paimon, a filesystem catalog on the shared warehouse volume; commits a snapshot on checkpoints.
CREATE CATALOG paimon_catalog WITH (
  'type' = 'paimon',
  'warehouse' = 'file:///warehouse/paimon-direct'
);
CREATE DATABASE IF NOT EXISTS paimon_catalog.`lake`;

-- lake table: paimon_catalog.lake.clicks_lake
CREATE TABLE IF NOT EXISTS paimon_catalog.`lake`.`clicks_lake` (
  `click_id` BIGINT NOT NULL,
  `page` VARCHAR(64) NOT NULL,
  PRIMARY KEY (`click_id`) NOT ENFORCED
)
WITH (
  'bucket' = '1'
);
