# Read-only queries for the console and for experiment steps. labgen
# refuses a preset that is not a single read-only statement.

preset "latest_orders_with_payment" {
  engine      = "mysql"
  title       = "Latest orders and their payments"
  description = "The ten most recently updated orders with their payment, if one has arrived (experiment 03)."
  sql         = file("presets/latest_orders_with_payment.sql")
}

preset "source_counts" {
  engine      = "mysql"
  title       = "Source row counts"
  description = "Orders by status and payments by status in MySQL."
  sql         = file("presets/source_counts.sql")
}

preset "unpaid_orders" {
  engine      = "mysql"
  title       = "Orders still waiting for a payment"
  description = "The newest orders that have no payment row yet."
  sql         = file("presets/unpaid_orders.sql")
}

preset "latest_wide_orders" {
  engine      = "clickhouse"
  title       = "Latest wide orders"
  description = "The ten most recently updated wide rows, one version per order (experiment 02)."
  sql         = file("presets/latest_wide_orders.sql")
}

preset "wide_status_counts" {
  engine      = "clickhouse"
  title       = "Wide rows by payment status"
  description = "How many orders ClickHouse holds per payment status, after deduplication."
  sql         = file("presets/wide_status_counts.sql")
}

preset "hourly_sales" {
  engine      = "clickhouse"
  title       = "Hourly sales summary"
  description = "The latest result of the bounded hourly job (experiment 04)."
  sql         = file("presets/hourly_sales.sql")
  needs       = [job.hourly_sales]
}

preset "latest_lake_audit" {
  engine      = "clickhouse"
  title       = "Latest lake audit"
  description = "The newest row of the lake consistency audit (experiment 05)."
  sql         = file("presets/latest_lake_audit.sql")
  needs       = [job.lake_audit]
}
