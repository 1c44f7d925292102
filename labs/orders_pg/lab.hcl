# The orders of the seed lab with PostgreSQL as their source: the same
# producer writes orders and delayed payments into PostgreSQL, Flink reads
# both through logical replication (Flink CDC's postgres-cdc, pgoutput) and
# joins them into one wide row per order, served from Kafka and ClickHouse.
# A lab of its own rather than a variable of the seed lab: the seed lab's
# experiments speak MySQL (its binlog, its SQL functions), and its native
# stack runs MariaDB.

lab "orders_pg" {
  title       = "Orders from PostgreSQL"
  description = <<-EOT
    A shop writes orders into PostgreSQL and, some time later, their
    payments. Flink reads both tables' changes from PostgreSQL's
    write-ahead log through a replication slot and joins them into one wide
    row per order, written to Kafka and served by ClickHouse. A batch job
    reads a snapshot of the orders through JDBC into a per-category
    summary. The experiments check the source tables, follow one order
    from PostgreSQL to ClickHouse and compare the summary with the live
    table.
  EOT
  seed        = 20261201
}

variable "order_rate" {
  type        = number
  default     = 5
  description = "Orders per second the producer writes."

  validation {
    condition     = var.order_rate > 0 && var.order_rate <= 10000
    error_message = "order_rate must be more than 0 and at most 10000 orders per second."
  }
}

variable "payment_delay" {
  type        = string
  default     = "20s"
  description = "Mean delay between an order and its payment (an input of the generator, not a measured latency)."
}
