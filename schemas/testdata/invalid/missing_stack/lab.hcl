# A lab without a stack.
# ERROR (no range): Missing stack block
lab "nostack" {
  title = "No stack"
}
