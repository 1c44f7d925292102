# A job reading one Kafka topic and writing an aggregate into another: the
# upsert-kafka sink (one key, many versions) and the topics kafka-init
# creates.
lab "kafka_upsert_sink" {
  title       = "Kafka upsert sink"
  description = "Clicks counted per page, kept in an upsert topic."
  seed        = 1
}

stack {
  kafka {}
  flink {}
}

table "clicks" {
  key = ["click_id"]

  column "click_id" { type = "bigint" }
  column "page" { type = "string(64)" }

  store "kafka" {
    topic      = "clicks"
    partitions = 3
  }
}

table "page_clicks" {
  key = ["page"]

  column "page" { type = "string(64)" }
  column "clicks" { type = "bigint" }

  store "kafka" {
    topic = "page-clicks"
  }
}

job "count" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.page_clicks
  query  = "SELECT page, COUNT(*) AS clicks FROM clicks GROUP BY page"
}
