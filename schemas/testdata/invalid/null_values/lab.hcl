# Nulls where a value is needed, including nulls hidden in collections
# and in conditionals: each is a diagnostic, none a crash.
lab "nulls" {
  title = null # ERROR: Null value
}

stack {
  mysql {}
  kafka {}
  flink {
    taskmanagers = 4000000000000000
    slots        = 4000000000000000
  }
}

table "t" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "x" { type = "double" }
  column "y" {
    type     = "string"
    nullable = true
  }
  column "z" { type = "string" }

  store "mysql" {}
}

table "u" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

producer "p" {
  table = table.t
  rate  = 1

  field "id" { value = sequence(1) }
  field "x" { value = false ? uniform(1, 2) : null } # ERROR: Value does not fit the column
  field "y" { value = true ? null : now() }
  field "z" { value = weighted({ a = null }) } # ERROR: Invalid function argument
}

job "j" {
  mode     = "streaming"
  reads    = [table.t]
  writes   = table.u
  query    = "SELECT id FROM t"
  settings = { "a" = null } # ERROR: Null value
}

experiment "e" {
  number = 1
  title  = "E"
  record = ["a", null] # ERROR: Null value

  step "c" {
    compose = false ? "stop kafka" : null # ERROR: Invalid compose step
  }

  step "w" {
    wait = false ? "5s" : null # ERROR: Null value
  }

  step "f" {
    flink = { show = null } # ERROR: Null value
  }
}
