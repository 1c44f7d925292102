lab "sqltables" {
  title = "Query steps and presets naming tables the lab does not declare"
}

stack {
  mysql {}
  postgres {}
  clickhouse {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "payments" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "postgres" {}
}

table "order_wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "clickhouse" {}
}

preset "wide_typo" {
  engine = "clickhouse"
  sql    = "SELECT count() FROM analytics.order_wid FINAL" # ERROR: Query reads an undeclared table
}

# The misspelt table is on the third line of the file.
preset "joined_typo" {
  engine = "mysql"
  sql    = file("presets/joined_typo.sql")
}

# Tables of another engine are not this engine's.
preset "other_engine" {
  engine = "postgres"
  sql    = "SELECT * FROM orders" # ERROR: Query reads an undeclared table
}

experiment "e" {
  number = 1
  title  = "E"

  step "typo" {
    engine = "clickhouse"
    sql    = "SELECT id FROM order_wid" # ERROR: Query reads an undeclared table
  }

  step "pick" {
    engine  = "mysql"
    sql     = "SELECT id FROM shop.orders LIMIT 1"
    capture = { id = result.rows[0].id }
  }

  # With a captured value in it, the SQL is still read for its tables.
  step "deferred" {
    engine = "postgres"
    sql    = "SELECT * FROM public.payment WHERE id = ${step.pick.id}" # ERROR: Query reads an undeclared table
  }

  step "preset" {
    query = preset.wide_typo
  }
}
