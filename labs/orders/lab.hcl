# The seed lab: MySQL orders and payments joined by Flink, served from
# Kafka and ClickHouse, kept in Fluss/Paimon and Iceberg, and seven
# experiments that ask what each part really shows.

lab "orders" {
  title       = "Seven experiments. One connected system."
  description = <<-EOT
    A shop writes orders into MySQL and, some time later, their payments.
    Flink joins the two change streams into one wide row per order and
    writes it to Kafka, to a Fluss table tiered into Paimon, and to an
    independent Iceberg table; ClickHouse serves the wide rows from the
    Kafka topic. Bounded Flink jobs summarise sales per hour and compare
    the two lake tables. The experiments trace one order through the
    system, watch a late payment change a joined row, compare continuous
    detail with a bounded summary, reconcile the lake counts, recover
    from a worker failure, and measure the serving lag row by row.
  EOT
  seed        = 20261129
}

variable "order_rate" {
  type        = number
  default     = 5
  description = "Orders per second the producer writes."

  validation {
    condition     = var.order_rate > 0 && var.order_rate <= 10000
    error_message = "order_rate must be more than 0 and at most 10000 orders per second."
  }
}

variable "payment_delay" {
  type        = string
  default     = "45s"
  description = "Mean delay between an order and its payment (an input of the generator, not a measured latency)."
}

variable "payment_delay_max" {
  type        = string
  default     = "5m"
  description = "Longest delay before a payment."
}

variable "payment_outcomes" {
  type        = map(number)
  default     = { PAID = 80, FAILED = 15, NONE = 5 }
  description = "Relative weights of what happens to an order's payment; NONE means no payment ever arrives."
}

variable "lakes" {
  type        = bool
  default     = true
  description = "Run Fluss (tiered into Paimon) and Iceberg. Without them experiments 04 and 05 are unavailable."
}

variable "state_backend" {
  type        = string
  default     = "hashmap"
  description = "Where Flink keeps the join's state: \"hashmap\" (objects on the TaskManager's heap) or \"rocksdb\" (an embedded RocksDB on disk). Experiment 07 compares them: labgen sweep -var state_backend=hashmap,rocksdb."

  validation {
    condition     = contains(["hashmap", "rocksdb"], var.state_backend)
    error_message = "state_backend must be \"hashmap\" or \"rocksdb\"."
  }
}

variable "taskmanagers" {
  type        = number
  default     = 1
  description = "Flink TaskManagers (taskmanager, taskmanager-2, …). Experiment 06 stops and starts the first one, taskmanager, whatever the count."

  validation {
    condition     = var.taskmanagers >= 1 && var.taskmanagers <= 8
    error_message = "taskmanagers must be between 1 and 8."
  }
}
