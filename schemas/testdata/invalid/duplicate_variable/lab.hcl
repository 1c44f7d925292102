lab "dupvar" {
  title = "A variable twice"
}

variable "rate" {
  default = 1
}

variable "rate" { # ERROR: Duplicate variable
  default = 2
}

stack {
  mysql {}
}
