lab "one" {
  title = "One"
}

lab "two" { # ERROR: Duplicate lab block
  title = "Two"
}

stack {
  mysql {}
  mysql {} # ERROR: Duplicate component
}

stack { # ERROR: Duplicate stack block
  kafka {}
}
