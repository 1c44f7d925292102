lab "jobs" {
  title = "Jobs that cannot be planned"
}

stack {
  mysql {}
  kafka {}
  flink {}
  clickhouse {}
  fluss {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
  store "fluss" {}
}

table "served" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "clickhouse" {}
}

job "undeclared_read" {
  mode   = "batch"
  reads  = [table.wide]
  writes = table.wide
  query  = "SELECT id FROM fluss_catalog.lab.wide UNION ALL SELECT id FROM fluss_catalog.lab.other" # ERROR: Query reads an undeclared table
}

job "not_writable" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.served # ERROR: Table not writable by Flink
  query  = "SELECT id FROM orders"
}

job "not_readable" {
  mode   = "streaming"
  reads  = [table.orders, table.served] # ERROR: Table not readable by Flink
  writes = table.wide
  query  = "SELECT o.id FROM orders o JOIN served s ON o.id = s.id"
}

job "unused_read" {
  mode   = "streaming"
  reads  = [table.orders, table.wide] # WARNING: Table read but not used
  writes = table.wide
  query  = "SELECT id FROM orders -- wide is only mentioned here"
}

job "bad_mode" {
  mode     = "continuous" # ERROR: Invalid value
  reads    = [table.orders]
  writes   = table.wide
  query    = "SELECT id FROM orders"
  settings = { parallelism = ["1"] } # ERROR: Incorrect attribute value type
}

job "no_query" { # ERROR: Missing required argument
  mode   = "batch"
  reads  = [table.orders]
  writes = table.wide
}
