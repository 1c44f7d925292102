lab "tables" {
  title = "Tables that cannot be stored"
}

stack {
  mysql {}
  kafka {}
  clickhouse {}
}

table "no_columns" { # ERROR: Table without columns
  key = [] # ERROR: Empty key
  store "mysql" {}
}

table "no_store" { # ERROR: Table without store
  key = ["id"]
  column "id" { type = "bigint" }
}

table "bad_keys" {
  key = ["id", "missing", "maybe"] # ERROR: Unknown key column # ERROR: Nullable key column

  column "id" { type = "bigint" }
  column "maybe" {
    type     = "int"
    nullable = true
  }

  store "mysql" {}
  store "oracle" {} # ERROR: Unknown store
}

table "empty_key" {
  key = [] # ERROR: Empty key
  column "id" { type = "bigint" }
  store "mysql" {}
}

table "serving" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "label" { type = "string" }

  store "kafka" {
    topic      = "no spaces allowed" # ERROR: Invalid topic name
    partitions = 0 # ERROR: Invalid number
  }
  store "clickhouse" {
    version = "label" # ERROR: Invalid version column
  }
}

table "serving_two" {
  key = ["id"]
  column "id" { type = "bigint" }

  store "clickhouse" { # ERROR: Nothing to ingest
    version = "updated_at" # ERROR: Unknown version column
    ingest  = "kafka"
  }
}

table "serving_three" {
  key = ["id", null] # ERROR: Null value
  column "id" { type = "bigint" }
  store "mysql" {
    name = "Bad-Name" # ERROR: Invalid name
  }
  store "clickhouse" {
    ingest = "s3" # ERROR: Invalid value
  }
}
