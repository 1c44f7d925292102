producer "shop" {
  table = table.orders
  rate  = var.rate

  field "order_id" { value = sequence(100, 2) }
  field "kind" { value = weighted({ a = 1, b = 2, c = 0 }) }
  field "amount" {
    value = normal(50, 10, { min = 0 })
    round = 2
  }
  field "qty" { value = uniform_int(1, 9) }
  field "ratio" { value = uniform(0, 1) }
  field "flag" { value = true }
  field "day" { value = now() }
  field "status" { value = "NEW" }
  field "note" { value = null }
  field "updated_at" { value = now() }

  follow "payment" {
    table   = table.payments
    delay   = exponential(var.delay, { min = "1s", max = "10m" })
    outcome = weighted(var.outcomes)
    never   = "NONE"

    field "payment_id" { value = sequence(1) }
    field "order_id" { value = parent("order_id") }
    field "status" { value = outcome() }
    field "paid_at" {
      value = outcome_map({ OK = now(), BAD = null })
    }
    field "mapped" {
      value = outcome_map({ OK = 1, BAD = 0 })
    }

    update {
      status     = outcome_map({ OK = "PAID", BAD = "FAILED" })
      updated_at = now()
    }
  }
}
