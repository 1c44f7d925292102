producer "devices" {
  table = table.readings
  rate  = var.reading_rate

  field "reading_id" { value = sequence(1) }
  field "device_id" { value = uniform_int(1, 12) }
  field "site" {
    value = weighted({ north = 5, south = 4, lab = 1 })
  }
  field "temperature" {
    value = normal(22, 4, { min = -10, max = 60 })
    round = 1
  }
  field "humidity" {
    value = uniform(20, 80)
    round = 1
  }
  field "measured_at" { value = now() }
}
