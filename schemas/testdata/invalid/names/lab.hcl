lab "Names" { # ERROR: Invalid name
  title = "Names that cannot be identifiers"
}

stack {
  mysql {}
}

table "Orders" { # ERROR: Invalid name
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "lines" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "Qty" { type = "int" } # ERROR: Invalid name
  store "mysql" {}
}

table "order-lines" { # ERROR: Invalid name
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

preset "1st" { # ERROR: Invalid name
  engine = "mysql"
  sql    = "SELECT 1"
}

experiment "first" {
  number = 1
  title  = "First"
  step "Look" { note = "x" } # ERROR: Invalid name
  step "ok" { note = "y" }
}
