lab "columns" {
  title = "Column types that do not exist"
}

stack {
  mysql {}
}

table "t" {
  key = ["id"]

  column "id" { type = "bigin" } # ERROR: Invalid column type
  column "a" { type = "decimal(2,5)" } # ERROR: Invalid column type
  column "b" { type = "decimal(40,2)" } # ERROR: Invalid column type
  column "c" { type = "decimal" } # ERROR: Invalid column type
  column "d" { type = "string(0)" } # ERROR: Invalid column type
  column "e" { type = "string(1,2)" } # ERROR: Invalid column type
  column "f" { type = "timestamp(9)" } # ERROR: Invalid column type
  column "g" { type = "int(11)" } # ERROR: Invalid column type
  column "h" { type = "varchar(10)" } # ERROR: Invalid column type
  column "i" { type = "" } # ERROR: Invalid column type
  column "j" { type = "decimal(12, 2)" }
  column "k" { type = "TIMESTAMP" }
  column "l" {} # ERROR: Missing required argument

  store "mysql" {}
}
