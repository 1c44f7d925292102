lab "compare" {
  title = "Comparisons that cannot work"
}

stack {
  mysql {}
}

table "orders" {
  key = ["id"]
  column "id" {
    type = "bigint"
  }
  column "amount" {
    type = "double"
  }
  column "category" {
    type = "string(16)"
  }
  store "mysql" {}
}

table "payments" {
  key = ["id"]
  column "id" {
    type = "bigint"
  }
  store "mysql" {}
}

producer "shop" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }
  field "amount" { value = lognormal(3, 0.5) }
  field "category" { value = weighted({ a = 1, b = 1 }) }

  follow "payment" {
    table = table.payments
    delay   = exponential("30s", { max = "2m" })
    outcome = weighted({ PAID = 1 })

    field "id" { value = parent("id") }
  }
}

experiment "one" {
  number = 1
  title  = "One"

  step "delays" {
    engine  = "mysql"
    sql     = "SELECT 1.5 AS delay_s"
    compare = { declared = producer.shop.follow.payment.delay, column = "delay_s" }
  }

  step "amounts" {
    engine  = "mysql"
    sql     = "SELECT amount FROM orders"
    compare = { declared = producer.shop.field.amount, column = "amount" }
  }

  step "not_a_law" {
    engine  = "mysql"
    sql     = "SELECT category FROM orders"
    compare = { declared = producer.shop.field.category, column = "category" } # ERROR: Not a continuous distribution
  }

  step "no_producer" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    compare = { declared = producer.factory.field.amount, column = "x" } # ERROR: Reference to undeclared producer
  }

  step "no_field" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    compare = { declared = producer.shop.field.weight, column = "x" } # ERROR: Reference to undeclared field
  }

  step "no_follow" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    compare = { declared = producer.shop.follow.refund.delay, column = "x" } # ERROR: Reference to undeclared follow-up
  }

  step "bad_form" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    compare = { declared = producer.shop.payment, column = "x" } # ERROR: Invalid reference
  }

  step "no_column" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    compare = { declared = producer.shop.field.amount } # ERROR: Incomplete compare
  }

  step "say" {
    note    = "hello"
    compare = { declared = producer.shop.field.amount, column = "x" } # ERROR: compare outside a query
  }
}
