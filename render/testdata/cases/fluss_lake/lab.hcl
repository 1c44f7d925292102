# A table kept in Fluss and tiered into Paimon: the Fluss servers, the
# tiering job and the union read of Fluss and its lake.
lab "fluss_lake" {
  title       = "Fluss lake"
  description = "Clicks kept in Fluss, tiered into Paimon."
  seed        = 1
}

stack {
  kafka {}
  flink {}
  fluss {
    lake      = "paimon"
    freshness = "30s"
    database  = "lake"
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

  store "fluss" {}
}

job "keep" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.clicks_lake
  query  = "SELECT click_id, page FROM clicks"
}
