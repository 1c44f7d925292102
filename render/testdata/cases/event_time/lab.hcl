# A table with an event-time column and a watermark, read by a windowed
# job: the source table's WATERMARK and the window's query.
lab "event_time" {
  title       = "Event time"
  description = "Clicks counted per page and ten-second window of their click time."
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
  column "clicked_at" { type = "timestamp(3)" }

  event_time {
    column   = "clicked_at"
    lateness = "2s"
  }

  store "kafka" {
    topic = "clicks"
  }
}

table "page_windows" {
  key = ["page", "window_start"]

  column "page" { type = "string(64)" }
  column "window_start" { type = "timestamp(3)" }
  column "window_end" { type = "timestamp(3)" }
  column "clicks" { type = "bigint" }

  store "kafka" {
    topic = "page-windows"
  }
}

job "windows" {
  mode   = "streaming"
  reads  = [table.clicks]
  writes = table.page_windows
  query  = "SELECT page, window_start, window_end, COUNT(*) AS clicks FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(clicked_at), INTERVAL '10' SECOND)) GROUP BY page, window_start, window_end"
}
