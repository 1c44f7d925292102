producer "docks" {
  table = table.rides
  rate  = var.ride_rate

  field "ride_id" { value = sequence(1) }
  field "bike_id" { value = uniform_int(1, 800) }
  field "station" {
    value = weighted({ central = 40, harbour = 25, campus = 20, park = 15 })
  }
  field "rider" {
    value = weighted({ member = 70, casual = 30 })
  }
  field "started_at" { value = now() }

  # Each ride ends with an arrival at a dock after a random delay; a few
  # bikes are never docked again.
  follow "arrival" {
    table   = table.arrivals
    delay   = exponential(var.ride_length, { max = "3m" })
    outcome = weighted({ DOCKED = 97, MISSING = 3 })
    never   = "MISSING"

    field "arrival_id" { value = sequence(1) }
    field "ride_id" { value = parent("ride_id") }
    field "station" {
      value = weighted({ central = 30, harbour = 30, campus = 20, park = 20 })
    }
    field "arrived_at" { value = now() }
  }
}
