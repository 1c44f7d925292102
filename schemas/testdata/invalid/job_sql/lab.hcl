lab "job_sql" {
  title = "Job queries Flink would reject"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "orders" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  column "amount" { type = "decimal(12,2)" }
  column "views" { type = "int" }
  store "mysql" {}
}

table "payments" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  store "mysql" {}
}

table "wide" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  column "amount" { type = "decimal(12,2)" }
  column "paid" { type = "boolean" }
  store "kafka" {}
}

# A plain table name missing from reads (item 1), in an inline query.
job "plain_undeclared" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = "SELECT o.order_id, o.amount, p.order_id IS NOT NULL AS paid FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id" # ERROR: Query reads an undeclared table
}

# The same, in a file, and a name no table has.
job "file_undeclared" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = file("jobs/undeclared.sql")
}

# Output columns that do not match the written table (item 2).
job "misspelt" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = file("jobs/misspelt.sql")
}

job "dropped" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = file("jobs/dropped.sql")
}

# A star: the names are not known, so nothing is said.
job "star" {
  mode   = "streaming"
  reads  = [table.wide]
  writes = table.wide
  query  = "SELECT * FROM wide"
}

# Output types Flink does not cast implicitly (item 2): warned where the
# type is obvious (a column of a read table, a literal, a CAST).
job "wrong_types" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = file("jobs/types.sql")
}

job "wrong_types_inline" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = "SELECT CAST(order_id AS STRING) AS order_id, amount, FALSE AS paid FROM orders" # WARNING: Output column type does not fit
}

# Reserved words as bare names (item 6).
job "reserved" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = file("jobs/reserved.sql")
}

preset "reserved_mysql" {
  engine = "mysql"
  sql    = file("presets/reserved.sql")
}
