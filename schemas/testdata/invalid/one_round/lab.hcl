# Independent mistakes are all reported at once: a decoding error in one
# block does not hide the reference errors of another.
lab "one_round" {
  title = "Several independent mistakes"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "note" { type = "text" } # ERROR: Invalid column type
  store "mysql" {}
}

table "out" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

producer "p" {
  table = table.orders
  rate  = "fast" # ERROR: Incorrect attribute value type

  field "id" { value = sequence(1) }
  field "note" { value = "x" }
}

job "copy" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.out
  query  = "SELECT id FROM orders JOIN other ON TRUE" # ERROR: Query reads an undeclared table
}

experiment "e" {
  number = 1
  title  = "E"

  step "pick" {
    engine  = "mysql"
    sql     = "SELECT id FROM orders"
    capture = { id = result.rows[0].id }
  }

  step "use" {
    engine = "mysql"
    sql    = "SELECT ${step.pick.order_id}" # ERROR: Value not captured
  }
}
