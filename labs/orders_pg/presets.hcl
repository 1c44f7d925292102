# Read-only queries for the console and for experiment steps, in
# PostgreSQL's SQL where they read the source tables.

preset "latest_orders_with_payment" {
  engine      = "postgres"
  title       = "Latest orders and their payments"
  description = "The ten most recently updated orders with their payment, if one has arrived."
  sql         = file("presets/latest_orders_with_payment.sql")
}

preset "source_counts" {
  engine      = "postgres"
  title       = "Source row counts"
  description = "Orders by status and payments by status in PostgreSQL."
  sql         = file("presets/source_counts.sql")
}

preset "unpaid_orders" {
  engine      = "postgres"
  title       = "Orders still waiting for a payment"
  description = "The newest orders that have no payment row yet."
  sql         = file("presets/unpaid_orders.sql")
}

preset "latest_wide_orders" {
  engine      = "clickhouse"
  title       = "Latest wide orders"
  description = "The ten most recently updated wide rows, one version per order."
  sql         = file("presets/latest_wide_orders.sql")
}
