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

  # Devices only ever add readings, so Flink may read the binlog as
  # inserts: what an interval join needs.
  store "mysql" {
    append_only = true
  }
}

table "receipts" {
  description = "The gateway's receipt of a reading: it comes after a network delay, and a few readings are never received."
  key         = ["receipt_id"]

  column "receipt_id" { type = "bigint" }
  column "reading_id" { type = "bigint" }
  column "device_id" { type = "int" }
  column "received_at" { type = "timestamp(3)" }

  event_time {
    column   = "received_at"
    lateness = var.lateness
  }

  store "mysql" {
    append_only = true
  }
}

table "deliveries" {
  description = "Each reading joined with its receipt, if the receipt came within ten seconds of the measurement."
  key         = ["reading_id"]

  column "reading_id" { type = "bigint" }
  column "device_id" { type = "int" }
  column "measured_at" { type = "timestamp(3)" }
  column "received_at" { type = "timestamp(3)" }
  column "delay_s" { type = "int" }

  # An interval join emits each match once and never retracts it: every
  # message is a new row, which a batch job can read up to an offset.
  store "kafka" {
    topic       = "deliveries"
    append_only = true
  }
  store "clickhouse" {}
}

table "device_summary" {
  description = "Per device, over every reading MySQL held when the batch job ran: how many, and the temperature's average and extremes."
  key         = ["device_id"]

  column "device_id" { type = "int" }
  column "readings" { type = "bigint" }
  column "avg_temperature" { type = "double" }
  column "min_temperature" { type = "double" }
  column "max_temperature" { type = "double" }
  column "last_measured_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "device-summary"
  }
  store "clickhouse" {
    version = "last_measured_at"
  }
}

table "delivery_summary" {
  description = "Per device, over the deliveries topic up to its latest offset when the batch job ran: how many readings were delivered and how late."
  key         = ["device_id"]

  column "device_id" { type = "int" }
  column "delivered" { type = "bigint" }
  column "avg_delay_s" { type = "double" }
  column "max_delay_s" { type = "int" }
  column "last_received_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "delivery-summary"
  }
  store "clickhouse" {
    version = "last_received_at"
  }
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
