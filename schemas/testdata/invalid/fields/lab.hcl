lab "fields" {
  title = "Fields that do not fit their table"
}

stack {
  mysql {}
}

table "orders" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "amount" { type = "decimal(10,2)" }
  column "status" { type = "string(8)" }
  column "created_at" { type = "timestamp(3)" }
  column "flag" { type = "boolean" }
  column "note" {
    type     = "string"
    nullable = true
  }
  column "required" { type = "int" }

  store "mysql" {}
}

producer "shop" { # ERROR: Column without a value
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }
  field "amount" { value = "lots" } # ERROR: Value does not fit the column
  field "status" {
    value = uniform(1, 2) # ERROR: Value does not fit the column
    round = 1 # ERROR: Rounding a non-number
  }
  field "created_at" { value = 5 } # ERROR: Value does not fit the column
  field "flag" { value = now() } # ERROR: Value does not fit the column
  field "note" { value = parent("id") } # ERROR: parent() outside a follow-up
  field "colour" { value = "red" } # ERROR: Unknown column
}

producer "more" {
  table = table.orders
  rate  = 0 # ERROR: Invalid rate

  field "id" { value = null } # ERROR: Value does not fit the column
  field "amount" { value = outcome() } # ERROR: outcome() outside a follow-up
  field "status" { value = outcome_map({ A = "a" }) } # ERROR: outcome_map() outside a follow-up
  field "created_at" { value = now() }
  field "flag" { value = true }
  field "required" { value = "7" } # ERROR: Value does not fit the column
}
