lab "syntax" {
  title = "Broken"
}

stack {
  mysql {}
}
