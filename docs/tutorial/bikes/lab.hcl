# The tutorial's lab (docs/tutorial.md builds it step by step): a
# bike-share's rides and arrivals in MySQL, joined by Flink into one trip
# per ride, served from Kafka and ClickHouse.

lab "bikes" {
  title       = "Bike-share trips, from the dock to the dashboard"
  description = <<-EOT
    Docks write a row into MySQL when a bike leaves, and another when it
    is docked again. Flink joins the two change streams into one trip per
    ride, RIDING until the bike is docked and RETURNED after, and writes it
    to a Kafka topic that ClickHouse serves. The experiments check that
    every ride reaches ClickHouse and that an arrival updates its trip.
  EOT
  seed        = 20261202
}

variable "ride_rate" {
  type        = number
  default     = 4
  description = "Rides started per second."

  validation {
    condition     = var.ride_rate > 0 && var.ride_rate <= 1000
    error_message = "ride_rate must be more than 0 and at most 1000 rides per second."
  }
}

variable "ride_length" {
  type        = string
  default     = "20s"
  description = "Mean time between a ride's start and its arrival at a dock (short, so that the lab shows trips end within a minute)."
}
