lab "refs" {
  title = "References to nothing"
}

stack {
  mysql {}
  kafka {}
  flink {}
  clickhouse {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "out" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

producer "shop" {
  table = table.order # ERROR: Reference to undeclared table
  rate  = 1

  field "id" { value = sequence(1) }
}

producer "pay" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }

  follow "payment" {
    table   = table.payments # ERROR: Reference to undeclared table
    delay   = "5s"
    outcome = weighted({ PAID = 1 })
  }
}

job "copy" {
  mode   = "streaming"
  reads  = [table.orders, table.customers] # ERROR: Reference to undeclared table
  writes = table.nowhere # ERROR: Reference to undeclared table
  query  = "SELECT id FROM orders"
}

experiment "one" {
  number = 1
  title  = "One"
  needs  = [job.copy, job.kopy] # ERROR: Reference to undeclared job

  step "look" {
    query = preset.latest # ERROR: Reference to undeclared preset
  }

  step "job" {
    flink = { job = job.other } # ERROR: Reference to undeclared job
  }
}
