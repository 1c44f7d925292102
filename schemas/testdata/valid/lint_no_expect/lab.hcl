# An experiment without any expect records steps, not an answer.
lab "no_expect" {
  title = "Experiments without expectations"
}

stack {
  mysql {}
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }

  store "mysql" {}
}

experiment "looks" { # WARNING: Experiment without expectations
  number   = 1
  title    = "Only looks"
  question = "How many orders are there?"

  step "count" {
    engine  = "mysql"
    sql     = "SELECT COUNT(*) AS n FROM orders"
    capture = { n = result.rows[0].n }
  }

  step "note" {
    note = "Write the count down."
  }
}

experiment "measures" {
  number = 2
  title  = "Measures"

  step "before" {
    engine  = "mysql"
    sql     = "SELECT COUNT(*) AS n FROM orders"
    capture = { n = result.rows[0].n }
  }

  step "later" {
    wait = "10s"
  }

  step "after" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"

    expect {
      condition = result.rows[0].n > step.before.n
      message   = "The producer wrote orders meanwhile."
    }
  }
}
