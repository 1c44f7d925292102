lab "event_time" {
  title = "Time attributes that cannot be declared"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "readings" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "value_c" { type = "double" }
  column "read_at" { type = "timestamp(3)" }

  event_time {
    column   = "read_day" # ERROR: Unknown event-time column
    lateness = "5s"
  }
  processing_time = "read_at" # ERROR: Processing-time column shadows a column

  store "mysql" {
    event_time {
      column = "value_c" # ERROR: Invalid event-time column
    }
  }
}
