lab "follows" {
  title = "Follow-ups that cannot happen"
}

stack {
  mysql {}
  kafka {}
}

table "orders" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "status" { type = "string(16)" }

  store "mysql" {}
}

table "payments" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "order_id" { type = "bigint" }
  column "status" { type = "string(8)" }
  column "code" { type = "int" }

  store "mysql" {}
}

table "events" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

producer "shop" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }
  field "status" { value = "NEW" }

  follow "payment" { # ERROR: Column without a value
    table   = table.payments
    delay   = weighted({ a = 1 }) # ERROR: Invalid delay
    outcome = uniform(1, 2) # ERROR: Invalid outcome

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("order_no") } # ERROR: Unknown parent column
    field "status" { value = outcome() }
  }

  follow "refund" {
    table   = table.payments
    delay   = "soon" # ERROR: Invalid delay
    outcome = weighted({ OK = 1, LOST = 1, NEVER = 1 })
    never   = "NONE" # ERROR: Unknown outcome

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }
    field "code" {
      value = outcome_map({ OK = 1 }) # ERROR: Outcome not mapped # ERROR: Outcome not mapped
    }

    update {
      id     = 5 # ERROR: Key column updated
      colour = "red" # ERROR: Unknown column
      status = outcome_map({ OK = "DONE", LOST = "LOST" }) # ERROR: Outcome not mapped
    }
  }

  follow "event" {
    table   = table.events # ERROR: Follow-up table not in MySQL
    delay   = 5
    outcome = weighted({ A = 1 })

    field "id" { value = sequence(1) }
  }
}

producer "to_kafka" {
  table = table.events # ERROR: Producer table not in MySQL
  rate  = 1

  field "id" { value = sequence(1) }
}
