lab "stepsql" {
  title = "Steps whose SQL writes"
}

stack {
  mysql {}
  clickhouse {}
}

experiment "e" {
  number = 1
  title  = "E"

  step "drop" {
    engine = "mysql"
    sql    = "DROP TABLE orders" # ERROR: Query is not read-only
  }

  step "two" {
    engine = "clickhouse"
    sql    = "SELECT 1; SELECT 2" # ERROR: Query is not read-only
  }

  step "pick" {
    engine  = "mysql"
    sql     = "SELECT 1 AS id"
    capture = { id = result.rows[0].id }
  }

  # SQL that needs a captured value is checked when it runs, with the
  # value in place.
  step "deferred" {
    engine = "mysql"
    sql    = "DELETE FROM orders WHERE id = ${step.pick.id}"
  }
}
