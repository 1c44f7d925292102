lab "dups" {
  title = "Everything twice"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "orders" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "id" { type = "int" } # ERROR: Duplicate column

  store "mysql" {}
  store "mysql" {} # ERROR: Duplicate store
}

table "orders" { # ERROR: Duplicate table
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "out" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

producer "shop" {
  table = table.orders
  rate  = 1

  field "id" { value = sequence(1) }
  field "id" { value = sequence(1) } # ERROR: Duplicate field
}

producer "shop" { # ERROR: Duplicate producer
  table = table.orders
  rate  = 1
  field "id" { value = sequence(1) }
}

job "copy" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.out
  query  = "SELECT id FROM orders"
}

job "copy" { # ERROR: Duplicate job
  mode   = "batch"
  reads  = [table.orders]
  writes = table.out
  query  = "SELECT id FROM orders"
}

preset "count" {
  engine = "mysql"
  sql    = "SELECT COUNT(*) FROM orders"
}

preset "count" { # ERROR: Duplicate preset
  engine = "mysql"
  sql    = "SELECT 1"
}

experiment "one" {
  number = 1
  title  = "One"

  step "look" {
    query = preset.count
  }

  step "look" { # ERROR: Duplicate step
    note = "again"
  }
}

experiment "one" { # ERROR: Duplicate experiment
  number = 2
  title  = "Two"
  step "a" { note = "a" }
}
