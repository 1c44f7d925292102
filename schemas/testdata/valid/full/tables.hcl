table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }
  column "kind" { type = "string(8)" }
  column "amount" { type = "decimal(10,2)" }
  column "qty" { type = "int" }
  column "ratio" { type = "double" }
  column "flag" { type = "boolean" }
  column "day" { type = "date" }
  column "status" { type = "string(16)" }
  column "note" {
    type     = "string"
    nullable = true
  }
  column "updated_at" { type = "timestamp(3)" }

  store "mysql" {
    name = "shop_orders"
  }
}

table "payments" {
  key = ["payment_id"]

  column "payment_id" { type = "bigint" }
  column "order_id" { type = "bigint" }
  column "status" { type = "string(8)" }
  column "paid_at" {
    type     = "timestamp(6)"
    nullable = true
  }
  column "mapped" { type = "int" }

  store "mysql" {}
}

table "wide" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }
  column "status" { type = "string(16)" }
  column "updated_at" { type = "timestamp(3)" }

  store "kafka" {
    topic      = "wide-orders"
    partitions = 3
  }
  store "clickhouse" {
    version = "updated_at"
  }
  store "fluss" {}
  store "iceberg" {
    name = "wide_ice"
  }
}

table "summary" {
  key = ["status"]

  column "status" { type = "string(16)" }
  column "n" { type = "bigint" }

  store "kafka" {}
  store "clickhouse" {
    ingest = "kafka"
  }
}
