table "rides" {
  description = "One row per ride, written when the bike leaves its dock."
  key         = ["ride_id"]

  column "ride_id" { type = "bigint" }
  column "bike_id" { type = "int" }
  column "station" { type = "string(16)" }
  column "rider" { type = "string(8)" }
  column "started_at" { type = "timestamp(3)" }

  store "mysql" {}
}

table "arrivals" {
  description = "One row per bike docked again; a few bikes never come back."
  key         = ["arrival_id"]

  column "arrival_id" { type = "bigint" }
  column "ride_id" { type = "bigint" }
  column "station" { type = "string(16)" }
  column "arrived_at" { type = "timestamp(3)" }

  store "mysql" {}
}

table "trips" {
  description = "A ride joined with its arrival: RIDING first, RETURNED once the bike is docked."
  key         = ["ride_id"]

  column "ride_id" { type = "bigint" }
  column "bike_id" { type = "int" }
  column "rider" { type = "string(8)" }
  column "start_station" { type = "string(16)" }
  column "end_station" {
    type     = "string(16)"
    nullable = true
  }
  column "status" { type = "string(8)" }
  column "started_at" { type = "timestamp(3)" }
  column "ended_at" {
    type     = "timestamp(3)"
    nullable = true
  }
  column "duration_s" {
    type     = "int"
    nullable = true
  }
  column "updated_at" { type = "timestamp(3)" }

  store "kafka" {
    topic = "trips"
  }
  store "clickhouse" {
    version = "updated_at"
  }
}
