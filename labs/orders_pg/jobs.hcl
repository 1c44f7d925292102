# Plain names read a table's PostgreSQL store through Flink CDC's
# postgres-cdc source (logical replication, pgoutput).

job "order_wide" {
  mode        = "streaming"
  description = "Joins each order with its payment (a regular LEFT JOIN) into one wide row per order."
  reads       = [table.orders, table.payments]
  writes      = table.dwd_order_wide
  query       = file("jobs/order_wide.sql")
}

# A bounded job: PostgreSQL read through JDBC, a snapshot of the table
# when the job runs, not the replication slot.
job "category_summary" {
  mode        = "batch"
  description = "Per category, over the orders in PostgreSQL when the job runs: how many, their amount and the newest order's time."
  reads       = [table.orders]
  writes      = table.category_summary
  query       = <<-SQL
    SELECT
      category,
      COUNT(*) AS orders,
      CAST(SUM(order_amount) AS DECIMAL(14, 2)) AS amount,
      MAX(created_at) AS last_created_at
    FROM orders
    GROUP BY category
  SQL
}

# A bounded read of the Paimon table order_wide writes: the latest
# snapshot, committed at the streaming job's last completed checkpoint.
job "paimon_audit" {
  mode        = "batch"
  description = "Counts the orders in the latest snapshot of the Paimon table the streaming job writes."
  reads       = [table.dwd_order_wide]
  writes      = table.paimon_audit
  query       = file("jobs/paimon_audit.sql")
}
