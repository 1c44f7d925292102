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
}
