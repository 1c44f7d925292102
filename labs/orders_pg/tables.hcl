table "orders" {
  description = "One row per order, updated when its payment settles."
  key         = ["order_id"]

  column "order_id" { type = "bigint" }
  column "customer_id" { type = "bigint" }
  column "category" { type = "string(32)" }
  column "order_amount" { type = "decimal(12,2)" }
  column "order_status" { type = "string(16)" }
  column "created_at" { type = "timestamp(3)" }
  column "updated_at" { type = "timestamp(3)" }

  store "postgres" {}
}

table "payments" {
  description = "At most one payment per order, arriving after a delay."
  key         = ["payment_id"]

  column "payment_id" { type = "bigint" }
  column "order_id" { type = "bigint" }
  column "payment_status" { type = "string(16)" }
  column "amount" { type = "decimal(12,2)" }
  column "paid_at" {
    type     = "timestamp(3)"
    nullable = true
  }
  column "updated_at" { type = "timestamp(3)" }

  store "postgres" {}
}

table "dwd_order_wide" {
  description = "The order joined with its payment: one key, several versions."
  key         = ["order_id"]

  column "order_id" { type = "bigint" }
  column "customer_id" { type = "bigint" }
  column "category" { type = "string(32)" }
  column "order_amount" { type = "decimal(12,2)" }
  column "order_status" { type = "string(16)" }
  column "payment_status" { type = "string(16)" }
  column "paid_at" {
    type     = "timestamp(3)"
    nullable = true
  }
  column "created_at" { type = "timestamp(3)" }
  column "updated_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "dwd-order-wide"
  }
  store "clickhouse" {
    version = "updated_at"
  }
  store "paimon" {}
}

table "category_summary" {
  description = "Per category, over every order PostgreSQL held when the batch job ran: how many, their amount, and the newest order it saw."
  key         = ["category"]

  column "category" { type = "string(32)" }
  column "orders" { type = "bigint" }
  column "amount" { type = "decimal(14,2)" }
  column "last_created_at" { type = "timestamp(3)" }

  # Each run of the batch job writes one new row per category: a message is
  # never an update of an earlier one, and ClickHouse keeps the newest run.
  store "kafka" {
    topic       = "category-summary"
    append_only = true
  }
  store "clickhouse" {
    version = "last_created_at"
  }
}

table "paimon_audit" {
  description = "One bounded read of the Paimon table the streaming job writes: what its latest snapshot holds."
  key         = ["audited_at"]

  column "audited_at" { type = "timestamp(3)" }
  column "paimon_orders" { type = "bigint" }
  column "distinct_orders" { type = "bigint" }
  column "paid_orders" { type = "bigint" }
  column "max_order_id" {
    type     = "bigint"
    nullable = true
  }

  # Each run of the batch job writes one new row.
  store "kafka" {
    topic       = "paimon-audit"
    append_only = true
  }
  store "clickhouse" {
    version = "audited_at"
  }
}
