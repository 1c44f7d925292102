lab "parts" {
  title = "Parts of blocks declared twice"
}

stack {
  mysql {}
  flink {
    restart {
      strategy = "none"
    }
    restart { # ERROR: Duplicate restart block
      strategy = "fixed-delay"
    }
  }
}

table "a" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "v" {
    type     = "int"
    nullable = true
  }
  store "mysql" {}
}

producer "p" {
  table = table.a
  rate  = 1

  field "id" { value = sequence(1) }

  follow "again" {
    table   = table.a
    delay   = 1
    outcome = weighted({ X = 1 })
    field "id" { value = sequence(1) }

    update {}
    update { # ERROR: Duplicate update block
      v = 1
    }
  }

  follow "again" { # ERROR: Duplicate follow
    table   = table.a
    delay   = 1
    outcome = weighted({ X = 1 })
    field "id" { value = sequence(1) }
  }
}

experiment "e" {
  number = 1
  title  = "E"

  step "s" {
    engine = "mysql"
    sql    = "SELECT 1 AS a"
    capture = {
      a = result.rows[0].a
      a = 2 # ERROR: Duplicate capture
    }
  }

  step "k" {
    kafka = {
      topic = "t"
      topic = "u" # ERROR: Duplicate argument
    }
  }
}
