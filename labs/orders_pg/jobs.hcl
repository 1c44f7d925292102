# Plain names read a table's PostgreSQL store through Flink CDC's
# postgres-cdc source (logical replication, pgoutput).

job "order_wide" {
  mode        = "streaming"
  description = "Joins each order with its payment (a regular LEFT JOIN) into one wide row per order."
  reads       = [table.orders, table.payments]
  writes      = table.dwd_order_wide
  query       = file("jobs/order_wide.sql")
}
