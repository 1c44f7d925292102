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
