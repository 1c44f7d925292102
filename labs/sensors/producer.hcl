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

  # The gateway receives most readings a moment later; a few never. The
  # delay is an input of the generator; deliveries measure it back.
  follow "receipt" {
    table   = table.receipts
    delay   = exponential("2s", { max = "30s" })
    outcome = weighted({ RECEIVED = 97, LOST = 3 })
    never   = "LOST"

    field "receipt_id" { value = sequence(1) }
    field "reading_id" { value = parent("reading_id") }
    field "device_id" { value = parent("device_id") }
    field "received_at" { value = now() }
  }
}
