lab "value_fit" {
  title = "Values longer than their column, distributions outside their range"
}

stack {
  mysql {}
}

table "carts" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "status" { type = "string(8)" }
  column "channel" { type = "string(4)" }
  column "items" { type = "tinyint" }
  column "score" { type = "decimal(4,2)" }
  column "weight" { type = "smallint" }
  column "updated_at" { type = "timestamp(3)" }
  store "mysql" {}
}

table "checkouts" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "cart_id" { type = "bigint" }
  column "result" { type = "string(8)" }
  column "note" {
    type     = "string(5)"
    nullable = true
  }
  store "mysql" {}
}

producer "shop" {
  table = table.carts
  rate  = 1

  field "id" { value = sequence(1) }
  field "status" { value = "ABANDONED" } # ERROR: Value does not fit the column
  field "channel" { value = weighted({ web = 3, mobile = 1 }) } # ERROR: Value does not fit the column
  field "items" { value = 300 } # ERROR: Value does not fit the column
  field "score" { value = normal(50, 40) } # WARNING: Distribution leaves the column's range
  field "weight" { value = uniform_int(0, 40000) } # WARNING: Distribution leaves the column's range
  field "updated_at" { value = now() }

  follow "checkout" {
    table   = table.checkouts
    delay   = normal("5s", "20s") # WARNING: Delay below zero
    outcome = weighted({ COMPLETED = 3, DECLINED = 1, NONE = 1 })
    never   = "NONE"

    field "id" { value = sequence(1) }
    field "cart_id" { value = parent("id") }
    field "result" { value = outcome() } # ERROR: Value does not fit the column
    field "note" {
      value = outcome_map({ COMPLETED = "thanks", DECLINED = null }) # ERROR: Value does not fit the column
    }

    update {
      status = outcome_map({ COMPLETED = "PAID", DECLINED = "REJECTED" })
    }
  }
}

# Clamped by its own bounds: nothing to say.
producer "fine" {
  table = table.checkouts
  rate  = 1

  field "id" { value = sequence(1) }
  field "cart_id" { value = normal(5, 10, { min = 0, max = 100 }) }
  field "result" { value = weighted({ OK = 1 }) }
}
