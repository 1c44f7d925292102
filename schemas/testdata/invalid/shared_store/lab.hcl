# Two tables whose stores are one place would overwrite each other's rows.
lab "shared" {
  title = "Two tables, one topic"
}

stack {
  mysql {}
  kafka {}
}

table "a" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
  store "kafka" {
    topic = "events"
  }
}

table "b" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" { # ERROR: Two tables in one place
    name = "a"
  }
  store "kafka" { # ERROR: Two tables in one place
    topic = "events"
  }
}
