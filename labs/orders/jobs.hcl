# Flink SQL jobs. Each query is a SELECT; labgen declares the tables it
# reads and writes from the table blocks and inserts the result into every
# store of the written table that Flink can reach. Plain names read a
# table's MySQL (CDC) or Kafka store; lake tables are named through their
# catalogs, fluss_catalog.<database>.<table> and iceberg_catalog.<database>.<table>.

job "order_wide" {
  mode        = "streaming"
  description = "Joins each order with its payment (a regular LEFT JOIN) into one wide row per order."
  reads       = [table.orders, table.payments]
  writes      = table.dwd_order_wide
  query       = file("jobs/order_wide.sql")
}

job "hourly_sales" {
  mode        = "batch"
  description = "Groups the wide rows by creation hour and category; gmv counts every order, paid_gmv only PAID ones."
  reads       = [table.dwd_order_wide]
  writes      = table.ads_hourly_sales
  query       = file("jobs/hourly_sales.sql")
}

job "lake_audit" {
  mode        = "batch"
  description = "Counts the Fluss/Paimon union table and the Iceberg table in one bounded read."
  reads       = [table.dwd_order_wide]
  writes      = table.lake_consistency_audit
  query       = file("jobs/lake_audit.sql")
}
