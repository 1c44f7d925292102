table "readings" {
  description = "One row per reading a device sends."
  key         = ["reading_id"]

  column "reading_id" { type = "bigint" }
  column "device_id" { type = "int" }
  column "site" { type = "string(16)" }
  column "temperature" { type = "double" }
  column "humidity" { type = "double" }
  column "measured_at" { type = "timestamp(3)" }

  # Windows group readings by when they were measured, not by when Flink
  # sees them; the watermark trails the newest measurement by the lateness.
  event_time {
    column   = "measured_at"
    lateness = var.lateness
  }

  store "mysql" {}
}

table "device_window" {
  description = "Each device's statistics per ten-second event-time window, written once the window closes."
  key         = ["device_id", "window_start"]

  column "device_id" { type = "int" }
  column "window_start" { type = "timestamp(3)" }
  column "window_end" { type = "timestamp(3)" }
  column "readings" { type = "bigint" }
  column "avg_temperature" { type = "double" }
  column "max_temperature" { type = "double" }

  store "kafka" {
    topic = "device-window"
  }
  store "clickhouse" {
    version = "window_end"
  }
}

table "site_heat" {
  description = "Hot readings per site so far: one key per site, a new version with every hot reading."
  key         = ["site"]

  column "site" { type = "string(16)" }
  column "hot_readings" { type = "bigint" }
  column "hottest" { type = "double" }
  column "last_hot_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "site-heat"
  }
  store "clickhouse" {
    version = "last_hot_at"
  }
}
