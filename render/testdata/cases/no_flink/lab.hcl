# A stack without Flink: MySQL written by the producer, and ClickHouse.
# No Flink image, no job submitter, no flink-jobs.sh; stream-lab's batch
# says so.
lab "no_flink" {
  title       = "No Flink"
  description = "A producer writing MySQL beside an empty ClickHouse."
  seed        = 1
}

stack {
  mysql {}
  clickhouse {}
}

table "items" {
  key = ["item_id"]

  column "item_id" { type = "bigint" }
  column "price" { type = "decimal(10,2)" }

  store "mysql" {}
}

producer "items" {
  table = table.items
  rate  = 1

  field "item_id" { value = sequence(1) }
  field "price" {
    value = uniform(1, 10)
    round = 2
  }
}
