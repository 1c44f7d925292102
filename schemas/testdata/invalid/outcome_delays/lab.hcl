lab "outcome_delays" {
  title = "Delays per outcome the loader refuses"
}

stack {
  mysql {}
}

table "orders" {
  key = ["id"]

  column "id" { type = "bigint" }
  store "mysql" {}
}

table "payments" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "order_id" { type = "bigint" }
  column "status" { type = "string(8)" }
  column "amount" {
    type     = "double"
    nullable = true
  }
  store "mysql" {}
}

producer "shop" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }

  follow "paid" {
    table   = table.payments
    delay   = outcome_map({ PAID = exponential("15s") }) # ERROR: Outcome not mapped
    outcome = weighted({ PAID = 8, FAILED = 2 })

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }
    field "amount" { value = outcome_map({ PAID = uniform(1, 2), FAILED = null }) } # ERROR: Invalid value
  }

  follow "refund" {
    table   = table.payments
    delay   = outcome_map({ OK = "-5s", LOST = "1m", ODD = 3 }) # ERROR: Invalid delay # ERROR: Unknown outcome
    outcome = weighted({ OK = 9, LOST = 1 })
    never   = "LOST"

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }
  }

  follow "late" {
    table   = table.payments
    delay   = outcome_map({ OK = now() }) # ERROR: Invalid delay
    outcome = weighted({ OK = 1 })

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }
  }
}
