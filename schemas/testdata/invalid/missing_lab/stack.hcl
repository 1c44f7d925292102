# A lab without its lab block.
# ERROR (no range): Missing lab block
stack {
  mysql {}
}
