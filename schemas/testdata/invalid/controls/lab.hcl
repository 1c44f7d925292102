lab "controls" {
  title = "Controls that cannot work, and expectations that name none"
}

stack {
  mysql {}
}

table "orders" {
  key = ["id"]
  column "id" {
    type = "bigint"
  }
  store "mysql" {}
}

control "db_down" {
  title = "MySQL is stopped"
  stop  = ["mysql"]
}

control "nothing" { # ERROR: Control does nothing
  title = "Does nothing"
}

control "thaw" {
  title     = "Thawed, but nothing was paused"
  pause_for = "10s" # ERROR: pause_for without pause
}

control "orphan_query" {
  title = "A query without the job it replaces"
  query = "SELECT id FROM orders" # ERROR: Mutant without a job
}

control "ghost" {
  title = "A mutant of a job the lab does not declare"
  job   = job.nope # ERROR: Reference to undeclared job
  query = "SELECT id FROM orders"
}

control "frozen" {
  title = "MySQL is paused"
  pause = ["mysqld"] # ERROR: Unknown service
}

control "typo" {
  title = "A service the stack does not run"
  stop  = ["mysqll"] # ERROR: Unknown service
}

experiment "one" {
  number = 1
  title  = "One"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"

    expect {
      condition = result.rows[0].n >= 0
      message   = "Detected when MySQL is down."
      detects   = [control.db_down]
    }

    expect { # WARNING: Expectation without a control
      condition = length(result.rows) == 1
      message   = "Names no control."
    }

    expect {
      condition = length(result.rows) == 1
      message   = "A misspelt control."
      detects   = [control.db_dwon] # ERROR: Reference to undeclared control
    }

    expect {
      condition = length(result.rows) == 1
      message   = "Both."
      detects   = [control.db_down]
      sanity    = "both at once" # ERROR: Detects and sanity
    }

    expect {
      condition = length(result.rows) == 1
      message   = "A sanity check."
      sanity    = "It checks the query's shape."
    }
  }
}
