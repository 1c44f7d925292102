job "device_window" {
  mode        = "streaming"
  description = "Per device and ten-second event-time window: readings, average and highest temperature."
  reads       = [table.readings]
  writes      = table.device_window
  query       = file("jobs/device_window.sql")
}

# No window: the result of each site changes with every hot reading, for
# as long as the job runs.
job "site_heat" {
  mode        = "streaming"
  description = "Per site: how many readings were hot so far, the hottest and when the last came (a continuous aggregate)."
  reads       = [table.readings]
  writes      = table.site_heat
  query       = <<-SQL
    SELECT
      site,
      COUNT(*) AS hot_readings,
      MAX(temperature) AS hottest,
      MAX(measured_at) AS last_hot_at
    FROM readings
    WHERE temperature >= ${var.hot}
    GROUP BY site
  SQL
}

job "deliveries" {
  mode        = "streaming"
  description = "Each reading with its receipt, if it came within ten seconds (an event-time interval join over the rows written since the job started)."
  reads       = [table.readings, table.receipts]
  writes      = table.deliveries
  query       = file("jobs/deliveries.sql")
}

# Bounded jobs without a lake: MySQL is read through JDBC (a snapshot when
# the job runs), the append-only deliveries topic up to its latest offset.
job "device_summary" {
  mode        = "batch"
  description = "Per device, over the readings in MySQL when the job runs: count, average, lowest and highest temperature."
  reads       = [table.readings]
  writes      = table.device_summary
  query       = <<-SQL
    SELECT
      device_id,
      COUNT(*) AS readings,
      AVG(temperature) AS avg_temperature,
      MIN(temperature) AS min_temperature,
      MAX(temperature) AS max_temperature,
      MAX(measured_at) AS last_measured_at
    FROM readings
    GROUP BY device_id
  SQL
}

job "delivery_summary" {
  mode        = "batch"
  description = "Per device, over the deliveries topic up to its latest offset when the job runs: readings delivered, average and largest delay."
  reads       = [table.deliveries]
  writes      = table.delivery_summary
  query       = <<-SQL
    SELECT
      device_id,
      COUNT(*) AS delivered,
      AVG(CAST(delay_s AS DOUBLE)) AS avg_delay_s,
      MAX(delay_s) AS max_delay_s,
      MAX(received_at) AS last_received_at
    FROM deliveries
    GROUP BY device_id
  SQL
}
