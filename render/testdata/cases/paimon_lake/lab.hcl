# A table kept in Paimon (filesystem catalog on the warehouse volume),
# written by a streaming job directly, with no Fluss in between.
lab "paimon_lake" {
  title       = "Paimon lake"
  description = "Clicks kept in a Paimon table."
  seed        = 1
}

stack {
  kafka {}
  flink {}
  paimon {
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

  store "paimon" {}
}

job "keep" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.clicks_lake
  query  = "SELECT click_id, page FROM clicks"
}
