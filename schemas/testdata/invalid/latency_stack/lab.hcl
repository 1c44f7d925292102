lab "latency_stack" {
  title = "A slowed link whose far end the stack does not run"
}

stack {
  mysql {}
  kafka {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

control "binlog_late" { # ERROR: Link not in the stack
  title   = "MySQL's binlog late, with no Flink to read it"
  latency = { from = "mysql", to = "flink", add = "40s" }
}

control "serving_late" { # ERROR: Link not in the stack
  title   = "Kafka late to a ClickHouse the stack does not run"
  latency = { from = "kafka", to = "clickhouse", add = "20s" }
}
