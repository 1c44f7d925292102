job "trips" {
  mode        = "streaming"
  description = "Joins each ride with its arrival (a regular LEFT JOIN) into one trip per ride."
  reads       = [table.rides, table.arrivals]
  writes      = table.trips
  query       = file("jobs/trips.sql")
}
