# A sanity check (sanity = "…") checks the lab, and no control shows it
# able to fail, so its message must not claim a measurement; one that
# names the controls it detects may.
lab "sanity_claims" {
  title = "Sanity checks whose message claims a measurement"
}

stack {
  mysql {}
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }

  store "mysql" {}
}

control "db_down" {
  title = "MySQL is stopped"
  stop  = ["mysql"]
}

experiment "count" {
  number = 1
  title  = "MySQL holds orders"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"

    expect {
      condition = result.rows[0].n >= 0
      message   = "Measured: the count is not negative." # WARNING: Sanity check claims a measurement
      sanity    = "It checks the query's shape."
    }
    expect {
      condition = result.rows[0].n >= 0
      message   = "  measured, in lower case after spaces." # WARNING: Sanity check claims a measurement
      sanity    = "It checks the query's shape."
    }
    expect {
      condition = result.rows[0].n >= 0
      message   = "Checked: the count is not negative."
      sanity    = "It checks the query's shape."
    }
    expect {
      condition = result.rows[0].n > 0
      message   = "Measured: MySQL holds orders."
      detects   = [control.db_down]
    }
  }
}
