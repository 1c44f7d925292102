lab "validation" {
  title = "A default that fails its own validation"
}

variable "rate" {
  type    = number
  default = 0 # ERROR: Invalid value for variable

  validation {
    condition     = var.rate > 0
    error_message = "rate must be positive."
  }
}

variable "name" {
  type    = string
  default = "x"

  validation {
    condition     = var.name # ERROR: Invalid validation condition
    error_message = "A string is not a condition."
  }
}

stack {
  mysql {}
}
