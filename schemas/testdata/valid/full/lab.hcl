# A small lab that uses every part of the language once.
lab "full" {
  title       = "Every block once"
  description = <<-EOT
    Two tables, a producer with a follow-up, a streaming and a batch job,
    presets on both engines and two experiments that pass values along.
  EOT
  seed        = 42
}

variable "rate" {
  type    = number
  default = 5

  validation {
    condition     = var.rate > 0
    error_message = "rate must be positive."
  }
}

variable "delay" {
  type    = string
  default = "30s"
}

variable "outcomes" {
  type    = map(number)
  default = { OK = 9, BAD = 1, NONE = 1 }
}

variable "note" {
  description = "Untyped: any value."
  default     = "hello"
}
