# Values of the wrong type from every source: -var and the environment
# have no source range, the variables file and the default do.
# ERROR (no range): Invalid value for variable
# ERROR (no range): Invalid value for variable
lab "bad" {
  title = "Values of the wrong type"
}

variable "rate" {
  type    = number
  default = "fast" # ERROR: Invalid default value for variable
}

variable "on" {
  type    = bool
  default = true
}

variable "weights" {
  type    = map(number)
  default = {}
}

variable "delay" {
  type    = string
  default = "1s"
}

variable "kind" {
  type    = strin # ERROR: Invalid type specification
  default = "x"
}

stack {
  mysql {}
}
