lab "undeclared" {
  title = "A variable nobody declared"
}

variable "rate" {
  type    = number
  default = 5
}

stack {
  mysql {
    port = var.mysql_port # ERROR: Unsupported attribute
  }
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

producer "shop" {
  table = table.orders
  rate  = var.rates # ERROR: Unsupported attribute

  field "id" { value = sequence(1) }
}
