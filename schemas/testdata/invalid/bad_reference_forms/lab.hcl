lab "forms" {
  title = "References written as something else"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

producer "shop" {
  table = "orders" # ERROR: Invalid reference
  rate  = 1

  field "id" { value = sequence(1) }
}

job "copy" {
  mode   = "streaming"
  reads  = table.orders # ERROR: Invalid reference list
  writes = job.copy # ERROR: Invalid reference
  query  = "SELECT id FROM orders"
}

experiment "one" {
  number = 1
  title  = "One"
  needs  = [table.orders] # ERROR: Invalid reference

  step "look" {
    query = preset.a.b # ERROR: Invalid reference
  }
}
