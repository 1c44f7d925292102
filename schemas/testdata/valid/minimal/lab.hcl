# The smallest lab: a name and a stack.
lab "minimal" {
  title = "Nothing but MySQL"
}

stack {
  mysql {}
}
