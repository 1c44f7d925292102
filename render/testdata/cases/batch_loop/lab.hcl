# The batch loop: a service that runs the bounded jobs, pausing between
# rounds; ./stream-lab batch runs them on demand.
lab "batch_loop" {
  title       = "Batch loop"
  description = "A bounded count of the clicks kept in Iceberg, served from ClickHouse."
  seed        = 1
}

stack {
  kafka {}
  flink {}
  clickhouse {}
  iceberg {}
  batch_loop {
    pause = "1m"
  }
}

table "clicks" {
  key = ["click_id"]

  column "click_id" { type = "bigint" }
  column "page" { type = "string(64)" }

  store "kafka" {
    topic = "clicks"
  }
}

table "clicks_lake" {
  key = ["click_id"]

  column "click_id" { type = "bigint" }
  column "page" { type = "string(64)" }

  store "iceberg" {}
}

table "click_totals" {
  key = ["computed_at"]

  column "computed_at" { type = "timestamp(3)" }
  column "clicks" { type = "bigint" }

  store "kafka" {
    topic = "click-totals"
  }
  store "clickhouse" {
    version = "computed_at"
  }
}

job "keep" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.clicks_lake
  query  = "SELECT click_id, page FROM clicks"
}

job "totals" {
  mode   = "batch"
  reads  = [table.clicks_lake]
  writes = table.click_totals
  query  = "SELECT CAST(LOCALTIMESTAMP AS TIMESTAMP(3)) AS computed_at, COUNT(*) AS clicks FROM iceberg_catalog.lab.clicks_lake"
}
