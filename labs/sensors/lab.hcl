# A second lab, in another domain: sensor readings in MySQL, aggregated by
# Flink in event-time windows (closed once the watermark passes them) and
# in a continuous per-site aggregate (updated with every reading), joined
# with their receipts in an event-time interval join, and summarised by
# batch jobs without a lake; all served from Kafka and ClickHouse. Nothing
# in it is the orders lab.

lab "sensors" {
  title       = "Windows that close, aggregates that never do"
  description = <<-EOT
    Devices on three sites report temperature and humidity into MySQL.
    Flink reads the readings from the binlog and computes two things: the
    statistics of each device per ten-second event-time window, written
    once when the watermark passes the window's end, and the number of hot
    readings per site, a continuous aggregate that Flink updates with every
    reading. A gateway receipt follows most readings; an event-time
    interval join pairs each reading with a receipt that came within ten
    seconds. Two batch jobs summarise without a lake: one reads MySQL
    through JDBC, the other the append-only deliveries topic up to its
    latest offset. Everything reaches ClickHouse through Kafka. The
    experiments look at when a window's result appears, at how an unbounded
    aggregate keeps changing under the same key, at which receipts the join
    meets, and at what a bounded job over live sources reads.
  EOT
  seed        = 20261130
}

variable "reading_rate" {
  type        = number
  default     = 10
  description = "Readings per second the devices send."

  validation {
    condition     = var.reading_rate > 0 && var.reading_rate <= 10000
    error_message = "reading_rate must be more than 0 and at most 10000 readings per second."
  }
}

variable "hot" {
  type        = number
  default     = 28
  description = "Temperature (°C) from which a reading counts as hot."
}

variable "lateness" {
  type        = string
  default     = "2s"
  description = "How far the watermark trails the newest reading time: a window closes that long after its end."
}
