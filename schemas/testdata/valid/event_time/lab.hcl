lab "event_time" {
  title = "An event-time window over a Kafka topic"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "readings" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "device_id" { type = "bigint" }
  column "temperature" { type = "double" }
  column "read_at" { type = "timestamp(3)" }

  event_time {
    column   = "read_at"
    lateness = "5s"
  }
  processing_time = "proc_time"

  store "mysql" {}
}

table "per_minute" {
  key = ["device_id", "window_start"]
  column "device_id" { type = "bigint" }
  column "window_start" { type = "timestamp(3)" }
  column "window_end" { type = "timestamp(3)" }
  column "avg_temperature" { type = "double" }
  store "kafka" {}
}

job "per_minute" {
  mode   = "streaming"
  reads  = [table.readings]
  writes = table.per_minute
  query  = <<-EOT
    SELECT device_id, window_start, window_end, AVG(temperature) AS avg_temperature
    FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(read_at), INTERVAL '1' MINUTE))
    GROUP BY device_id, window_start, window_end
  EOT
}
