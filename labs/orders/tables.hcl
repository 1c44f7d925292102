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

  store "mysql" {}
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

  store "mysql" {}
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
  # arrived_at: when ClickHouse inserted each row, for experiment 07's lag.
  store "clickhouse" {
    version = "updated_at"
    arrival = "arrived_at"
  }
  store "fluss" {}
  store "iceberg" {}
}

table "ads_hourly_sales" {
  description = "Orders and GMV per creation hour and category, from the bounded job."
  key         = ["hour_bucket", "category"]

  column "hour_bucket" { type = "timestamp(3)" }
  column "category" { type = "string(32)" }
  column "order_count" { type = "bigint" }
  column "paid_order_count" { type = "bigint" }
  column "gmv" { type = "decimal(18,2)" }
  column "paid_gmv" { type = "decimal(18,2)" }
  column "computed_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "ads-hourly-sales"
  }
  store "clickhouse" {
    version = "computed_at"
  }
}

table "lake_consistency_audit" {
  description = "Row counts of the Fluss/Paimon union table and the Iceberg table, read by one bounded job."
  key         = ["audit_time"]

  column "audit_time" { type = "timestamp(3)" }
  column "paimon_fluss_count" { type = "bigint" }
  column "iceberg_count" { type = "bigint" }
  column "count_delta" { type = "bigint" }

  store "kafka" {
    topic = "lake-consistency-audit"
  }
  store "clickhouse" {}
}
