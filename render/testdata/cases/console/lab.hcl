# The query console: the labgen image's console service with the stack's
# read-only users, and the presets it offers.
lab "console" {
  title       = "Console"
  description = "A console over MySQL and ClickHouse."
  seed        = 1
}

stack {
  mysql {}
  clickhouse {}
  console {
    port = 8090
  }
}

table "items" {
  key = ["item_id"]

  column "item_id" { type = "bigint" }
  column "price" { type = "decimal(10,2)" }

  store "mysql" {}
}

preset "newest_items" {
  engine      = "mysql"
  title       = "Newest items"
  description = "The ten newest items."
  sql         = "SELECT item_id, price FROM items ORDER BY item_id DESC LIMIT 10"
}
