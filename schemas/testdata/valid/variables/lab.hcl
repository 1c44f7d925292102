# Every source of a value: default, environment, -var-file and -var, in
# Terraform's order (see TestVariablePrecedence for the values).
lab "variables" {
  title = "Variables from everywhere"
}

variable "from_default" {
  type    = number
  default = 1
}

variable "from_env" {
  type    = number
  default = 1
}

variable "from_file" {
  type    = number
  default = 1
}

variable "from_var" {
  type    = number
  default = 1
}

variable "untyped" {
  default = "x"
}

variable "weights" {
  type    = map(number)
  default = { a = 1 }
}

stack {
  mysql {}
}
