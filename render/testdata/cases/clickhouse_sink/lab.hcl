# A table served from ClickHouse, ingested from its Kafka topic through a
# Kafka-engine table and a materialized view, versioned by a column.
lab "clickhouse_sink" {
  title       = "ClickHouse sink"
  description = "Clicks counted per page, served from ClickHouse."
  seed        = 1
}

stack {
  kafka {}
  flink {}
  clickhouse {
    database = "serving"
  }
}

table "clicks" {
  key = ["click_id"]

  column "click_id" { type = "bigint" }
  column "page" { type = "string(64)" }
  column "clicked_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "clicks"
  }
}

table "page_clicks" {
  key = ["page"]

  column "page" { type = "string(64)" }
  column "clicks" { type = "bigint" }
  column "last_click" {
    type     = "timestamp(3)"
    nullable = true
  }

  store "kafka" {
    topic = "page-clicks"
  }
  store "clickhouse" {
    version = "last_click"
  }
}

job "count" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.page_clicks
  query  = "SELECT page, COUNT(*) AS clicks, MAX(clicked_at) AS last_click FROM clicks GROUP BY page"
}
