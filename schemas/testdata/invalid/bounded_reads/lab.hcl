lab "bounded_reads" {
  title = "Bounded reads Flink cannot make, and an append-only table that is updated"
}

stack {
  mysql {}
  kafka {}
  flink {}
  clickhouse {}
}

table "readings" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "value_c" { type = "double" }
  column "state" { type = "string(8)" }

  store "mysql" {
    append_only = true
  }
}

table "checks" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "reading_id" { type = "bigint" }

  store "mysql" {}
}

table "summary" {
  key = ["id"]
  column "id" { type = "bigint" }

  store "kafka" {}
}

table "latest" {
  key = ["id"]
  column "id" { type = "bigint" }

  # An upsert topic: Flink reads it only as an unbounded changelog.
  store "kafka" {}
}

table "served" {
  key = ["id"]
  column "id" { type = "bigint" }

  store "clickhouse" {
    append_only = true # ERROR: Unsupported argument
  }
}

# A MySQL store is read through JDBC in batch mode: no error.
job "batch_over_mysql" {
  mode   = "batch"
  reads  = [table.readings]
  writes = table.summary
  query  = "SELECT id FROM readings"
}

job "batch_over_upsert" {
  mode   = "batch"
  reads  = [table.latest] # ERROR: Batch job reads an upsert topic
  writes = table.summary
  query  = "SELECT id FROM latest"
}

producer "devices" {
  table = table.readings
  rate  = 1

  field "id" { value = sequence(1) }
  field "value_c" { value = uniform(0, 1) }
  field "state" { value = "NEW" }

  follow "check" {
    table   = table.checks
    delay   = "1s"
    outcome = weighted({ OK = 1 })

    field "id" { value = sequence(1) }
    field "reading_id" { value = parent("id") }

    update { # ERROR: Update of an append-only table
      state = "CHECKED"
    }
  }
}
