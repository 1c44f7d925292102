lab "unknown" { # ERROR: Missing required argument
  titel = "Typo" # ERROR: Unsupported argument
}

stack {
  mysql {
    versoin = "8.0" # ERROR: Unsupported argument
  }
  oracle {} # ERROR: Unsupported block type
}
