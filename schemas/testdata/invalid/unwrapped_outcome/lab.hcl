# Weights written without weighted(): the message names the attribute
# and shows it wrapped (TestPinnedRanges pins the texts).
lab "unwrapped_outcome" {
  title = "Weights without weighted()"
}

stack {
  mysql {}
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

  store "mysql" {}
}

producer "shop" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }
  field "status" { value = { NEW = 1 } } # ERROR: Invalid value

  follow "payment" {
    table   = table.payments
    delay   = 30
    outcome = { PAID = 80, FAILED = 20 } # ERROR: Invalid outcome

    field "id" { value = sequence(1) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }
  }

  follow "refund" {
    table = table.payments
    delay = { min = 5 } # ERROR: Invalid value
    outcome = { # ERROR: Invalid outcome
      OK   = 9
      LOST = 1
    }

    field "id" { value = sequence(1000000) }
    field "order_id" { value = parent("id") }
    field "status" { value = outcome() }

    update {
      status = { DONE = 1 } # ERROR: Invalid value
    }
  }

  follow "chargeback" {
    table   = table.payments
    delay   = 60
    outcome = { CHARGED_BACK_BY_THE_BANK = 1, KEPT_AFTER_A_DISPUTE = 9, REFUNDED_BY_THE_SHOP = 1, LOST = 1, NONE = 1 } # ERROR: Invalid outcome

    field "id" { value = sequence(2000000) }
    field "order_id" { value = parent("id") }
    field "status" { value = "BACK" }
  }
}
