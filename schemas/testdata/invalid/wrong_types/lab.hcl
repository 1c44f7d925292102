lab "types" {
  title = "Values of the wrong type"
  seed  = "random" # ERROR: Incorrect attribute value type
}

stack {
  mysql {
    port = 70000 # ERROR: Invalid port
  }
  kafka {
    enabled = "yes" # ERROR: Incorrect attribute value type
  }
  flink {
    taskmanagers = "two" # ERROR: Incorrect attribute value type
    slots        = 1.5 # ERROR: Invalid number
    parallelism  = 0 # ERROR: Invalid number
  }
  clickhouse {
    database = "Analytics" # ERROR: Invalid name
  }
}

table "orders" {
  key = "id" # ERROR: Incorrect attribute value type

  column "id" {
    type     = "bigint"
    nullable = "no" # ERROR: Incorrect attribute value type
  }
  column "n" { type = 5 } # ERROR: Invalid column type
  column "label" {
    type        = "string"
    description = ["not", "text"] # ERROR: Incorrect attribute value type
  }

  store "mysql" {}
}

producer "shop" {
  table = table.orders
  rate  = "fast" # ERROR: Incorrect attribute value type

  field "id" { value = sequence(1) }
  field "n" {
    value = uniform(1, 2)
    round = -1 # ERROR: Invalid number
  }
  field "label" { value = ["a"] } # ERROR: Invalid value
}

producer "huge" {
  table = table.orders
  rate  = 1e400 # ERROR: Invalid number

  field "id" { value = sequence(1) }
  field "n" { value = 1 }
  field "label" { value = "x" }
}

experiment "one" {
  number = "first" # ERROR: Incorrect attribute value type
  title  = "One"
  record = "a string" # ERROR: Incorrect attribute value type

  step "n" {
    note       = "x"
    on_failure = "explode" # ERROR: Invalid value
  }
}
