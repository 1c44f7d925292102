# -var rate=-1 passes the type but fails the validation; the diagnostic
# points at the variable, as the command line has no source range. The
# variables file's value fails too and is pointed at.
lab "validation" {
  title = "A -var that fails validation"
}

variable "rate" { # ERROR: Invalid value for variable
  type    = number
  default = 5

  validation {
    condition     = var.rate > 0
    error_message = "rate must be positive."
  }
}

variable "delay" {
  type    = string
  default = "5s"

  validation {
    condition     = length(split(" ", var.delay)) == 1
    error_message = "delay is one word, such as 5s."
  }
}

stack {
  mysql {}
}
