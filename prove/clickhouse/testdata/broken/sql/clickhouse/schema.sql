-- A broken lab for selftest.sh: every FAIL below must be reported with
-- ClickHouse's own message and where it came from.
CREATE DATABASE IF NOT EXISTS `analytics`;

CREATE TABLE IF NOT EXISTS `analytics`.`t`
(
    `id` Int64,
    `amount` Decimal(12, 2),
    `at` DateTime64(3)
)
ENGINE = ReplacingMergeTree(`at`)
ORDER BY (`id`);

-- A type ClickHouse does not know: must fail at line 15.
CREATE TABLE IF NOT EXISTS `analytics`.`bad`
(
    `id` Int64,
    `x` Text64
)
ENGINE = MergeTree
ORDER BY (`id`);
