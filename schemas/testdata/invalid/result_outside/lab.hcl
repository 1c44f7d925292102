lab "result" {
  title = "result where it means nothing"
}

stack {
  mysql {}
  kafka {}
}

table "t" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {
    topic = "t"
  }
}

experiment "one" {
  number = 1
  title  = "One"

  step "sql" {
    engine = "mysql"
    sql    = "SELECT ${result.rows[0].id}" # ERROR: result is not available here
  }

  step "key" {
    kafka = {
      topic = "t"
      key   = result.rows[0].id # ERROR: result is not available here
    }
  }

  step "ok" {
    engine = "mysql"
    sql    = "SELECT 1"
    capture = {
      n = length(result.rows)
    }

    expect {
      condition = length(result.rows) == 1
      message   = "One row."
    }
  }
}
