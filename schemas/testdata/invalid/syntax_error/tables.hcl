table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {
    name = # ERROR: Invalid expression
  }
}
