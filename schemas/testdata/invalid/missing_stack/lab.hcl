# A lab without a stack: the error points at the lab it is missing from.
lab "nostack" { # ERROR: Missing stack block
  title = "No stack"
}
