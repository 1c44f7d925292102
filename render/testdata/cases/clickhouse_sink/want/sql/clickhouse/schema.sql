-- Rendered by labgen from the lab "clickhouse_sink". Do not edit: change the lab and render again.
CREATE DATABASE IF NOT EXISTS `serving`;

CREATE TABLE IF NOT EXISTS `serving`.`page_clicks`
(
    `page` String,
    `clicks` Int64,
    `last_click` Nullable(DateTime64(3))
)
ENGINE = ReplacingMergeTree(`last_click`)
ORDER BY (`page`);

-- Reads the topic page-clicks; the view below moves each batch into page_clicks.
CREATE TABLE IF NOT EXISTS `serving`.`page_clicks_queue`
(
    `page` String,
    `clicks` Int64,
    `last_click` Nullable(DateTime64(3))
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = 'kafka:19092',
    kafka_topic_list = 'page-clicks',
    kafka_group_name = 'clickhouse-page_clicks',
    kafka_format = 'JSONEachRow',
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS `serving`.`page_clicks_mv` TO `serving`.`page_clicks` AS
SELECT `page`, `clicks`, `last_click`
FROM `serving`.`page_clicks_queue`;
