lab "required" {
  title = "A variable without a default"
}

variable "rate" { # ERROR: No value for required variable
  type = number
}

variable "delay" {
  type = string
}

stack {
  mysql {}
}
