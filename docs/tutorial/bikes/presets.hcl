preset "riding_now" {
  engine      = "mysql"
  title       = "Rides not docked yet"
  description = "The ten newest rides whose bike is not docked yet."
  sql         = <<-SQL
    SELECT r.ride_id, r.bike_id, r.station, r.started_at
    FROM rides AS r
    LEFT JOIN arrivals AS a ON a.ride_id = r.ride_id
    WHERE a.ride_id IS NULL
    ORDER BY r.ride_id DESC
    LIMIT 10
  SQL
}

preset "trips_by_station" {
  engine      = "clickhouse"
  title       = "Trips per start station"
  description = "How many trips ClickHouse serves per start station and status, one version per ride."
  sql         = <<-SQL
    SELECT start_station, status, count() AS trips, avg(duration_s) AS avg_duration_s
    FROM dashboard.trips FINAL
    GROUP BY start_station, status
    ORDER BY start_station, status
  SQL
}
