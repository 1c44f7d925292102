producer "shop" {
  table = table.orders
  rate  = var.order_rate

  field "order_id" { value = sequence(1) }
  field "customer_id" { value = uniform_int(1, 5000) }
  field "category" {
    value = weighted({ electronics = 30, books = 20, home = 20, fashion = 15, grocery = 15 })
  }
  field "order_amount" {
    value = lognormal(4.0, 0.7, { min = 1, max = 5000 })
    round = 2
  }
  field "order_status" { value = "CREATED" }
  field "created_at" { value = now() }
  field "updated_at" { value = now() }

  # A payment follows each order after a random delay; some orders are
  # never paid. The delay is an input of the generator, not a measured
  # end-to-end latency.
  follow "payment" {
    table   = table.payments
    delay   = exponential(var.payment_delay, { max = "2m" })
    outcome = weighted({ PAID = 80, FAILED = 15, NONE = 5 })
    never   = "NONE"

    field "payment_id" { value = sequence(1) }
    field "order_id" { value = parent("order_id") }
    field "payment_status" { value = outcome() }
    field "amount" { value = parent("order_amount") }
    field "paid_at" {
      value = outcome_map({ PAID = now(), FAILED = null })
    }
    field "updated_at" { value = now() }

    update {
      order_status = outcome_map({ PAID = "PAID", FAILED = "PAYMENT_FAILED" })
      updated_at   = now()
    }
  }
}
