# A PostgreSQL source table read by Flink through CDC, copied to Kafka.
lab "postgres_source" {
  title       = "PostgreSQL source"
  description = "A producer writes PostgreSQL; Flink reads its write-ahead log."
  seed        = 1
}

stack {
  postgres {
    database = "src"
  }
  kafka {}
  flink {}
}

table "items" {
  key = ["item_id"]

  column "item_id" { type = "bigint" }
  column "name" { type = "string(32)" }
  column "price" { type = "decimal(10,2)" }
  column "created_at" { type = "timestamp(3)" }

  store "postgres" {}
}

table "items_copy" {
  key = ["item_id"]

  column "item_id" { type = "bigint" }
  column "name" { type = "string(32)" }
  column "price" { type = "decimal(10,2)" }

  store "kafka" {
    topic = "items-copy"
  }
}

producer "items" {
  table = table.items
  rate  = 1

  field "item_id" { value = sequence(1) }
  field "name" { value = weighted({ a = 1, b = 1 }) }
  field "price" {
    value = uniform(1, 10)
    round = 2
  }
  field "created_at" { value = now() }
}

job "copy" {
  mode   = "streaming"
  reads  = [table.items]
  writes = table.items_copy
  query  = "SELECT item_id, name, price FROM items"
}
