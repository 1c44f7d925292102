# A table kept in Iceberg (hadoop catalog on the warehouse volume),
# written by a streaming job with upserts.
lab "iceberg_lake" {
  title       = "Iceberg lake"
  description = "Clicks kept in an Iceberg table."
  seed        = 1
}

stack {
  kafka {}
  flink {}
  iceberg {
    database = "lake"
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

job "keep" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.clicks_lake
  query  = "SELECT click_id, page FROM clicks"
}
