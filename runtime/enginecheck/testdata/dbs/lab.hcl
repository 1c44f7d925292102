# Presets and query steps for the database part of the engine check; the
# test creates the table "readings" on each server and edits the SQL.
lab "dbs" {
  title = "Presets on three databases"
}

stack {
  mysql {}
  postgres {}
  clickhouse {}
}

table "readings" {
  key = ["reading_id"]

  column "reading_id" { type = "bigint" }
  column "device_id" { type = "bigint" }
  column "temperature" { type = "double" }
  column "note" { type = "string(200)" }
  column "measured_at" { type = "timestamp(3)" }

  store "mysql" {}
  store "postgres" {}
  store "clickhouse" {}
}

preset "mysql_recent" {
  engine = "mysql"
  sql    = file("presets/mysql_recent.sql")
}

preset "postgres_recent" {
  engine = "postgres"
  sql    = file("presets/postgres_recent.sql")
}

preset "clickhouse_recent" {
  engine = "clickhouse"
  sql    = file("presets/clickhouse_recent.sql")
}

experiment "look" {
  number = 1
  title  = "Look at the readings"

  step "count" {
    engine  = "mysql"
    sql     = <<-SQL
      SELECT device_id,
             COUNT(*) AS n
      FROM readings
      GROUP BY device_id
    SQL
    capture = { n = result.rows[0].n }
  }

  step "postgres_count" {
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS n FROM readings"
  }

  step "late" {
    engine = "mysql"
    sql    = "SELECT * FROM readings WHERE device_id = ${step.count.n}"
  }
}
