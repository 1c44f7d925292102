lab "delays" {
  title = "Delays that cannot be waited"
}

stack {
  mysql {}
}

table "a" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "b" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "v" {
    type     = "string"
    nullable = true
  }
  store "mysql" {}
}

producer "p" {
  table = table.a
  rate  = 1

  field "id" { value = sequence(1) }

  follow "negative_seconds" {
    table   = table.b
    delay   = -5 # ERROR: Invalid delay
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }

  follow "negative_duration" {
    table   = table.b
    delay   = "-5s" # ERROR: Invalid delay
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }

  follow "boolean" {
    table   = table.b
    delay   = true # ERROR: Invalid delay
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }

  follow "null" {
    table   = table.b
    delay   = null # ERROR: Invalid delay
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }

  follow "below_zero" {
    table   = table.b
    delay   = uniform(-10, 10) # ERROR: Invalid delay
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }

  follow "fine" {
    table   = table.b
    delay   = normal("30s", "10s", { min = 0, max = "2m" })
    outcome = weighted({ A = 1, B = 1 })
    field "id" { value = sequence(1) }
    field "v" { value = outcome_map({ A = "a", B = null }) }
  }

  follow "fine_constant" {
    table   = table.b
    delay   = 0
    outcome = weighted({ A = 1 })
    field "id" { value = sequence(1) }
  }
}
