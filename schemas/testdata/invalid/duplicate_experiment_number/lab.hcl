lab "dupnum" {
  title = "Two experiments numbered 1"
}

stack {
  mysql {}
}

experiment "a" {
  number = 1
  title  = "A"
  step "n" { note = "a" }
}

experiment "b" { # ERROR: Duplicate experiment number
  number = 1
  title  = "B"
  step "n" { note = "b" }
}

experiment "c" {
  number = 2
  title  = "C"
  step "n" { note = "c" }
}
