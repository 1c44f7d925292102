lab "dists" {
  title = "Distributions that cannot be drawn from"
}

stack {
  mysql {}
}

table "t" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "a" { type = "string(8)" }
  column "b" { type = "string(8)" }
  column "c" { type = "double" }
  column "d" { type = "double" }
  column "e" { type = "double" }
  column "f" { type = "double" }
  column "g" { type = "double" }
  column "h" { type = "bigint" }
  column "i" { type = "double" }
  column "j" { type = "double" }
  column "k" { type = "double" }
  column "l" { type = "bigint" }
  column "m" { type = "string(8)" }
  column "n" { type = "double" }

  store "mysql" {}
}

producer "p" {
  table = table.t
  rate  = 1

  field "id" { value = sequence(1, 0) } # ERROR: Invalid function argument
  field "a" { value = weighted({ x = 1, y = -2 }) } # ERROR: Invalid function argument
  field "b" { value = weighted({ x = 0, y = 0 }) } # ERROR: Invalid function argument
  field "c" { value = uniform(10, 1) } # ERROR: Invalid function argument
  field "d" { value = normal(0, -1) } # ERROR: Invalid function argument
  field "e" { value = exponential(0) } # ERROR: Invalid function argument
  field "f" { value = exponential("-5s") } # ERROR: Invalid function argument
  field "g" { value = lognormal(1, 1, { min = 5, max = 1 }) } # ERROR: Invalid function argument
  field "h" { value = uniform_int(1.5, 3) } # ERROR: Invalid function argument
  field "i" { value = normal(1, 1, { mean = 2 }) } # ERROR: Invalid function argument
  field "j" { value = exponential("soon") } # ERROR: Invalid function argument
  field "k" { value = uniform(1) } # ERROR: Not enough function arguments
  field "l" { value = sequence(1, 2, 3) } # ERROR: Invalid function argument
  field "m" { value = weighted(["x", "y"]) } # ERROR: Invalid function argument
  field "n" { value = gaussian(1, 2) } # ERROR: Call to unknown function
}
