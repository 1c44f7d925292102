# -var rates=5 names a variable the lab does not declare; so does the
# variables file. A LABGEN_VAR_ entry for an undeclared name is ignored:
# the environment is shared with everything else.
# ERROR (no range): Value for undeclared variable
lab "undeclared" {
  title = "A variable nobody declared"
}

variable "rate" {
  type    = number
  default = 5
}

stack {
  mysql {}
}
