# A block type the language does not know stops the load, like a syntax
# error: what follows would be judged without it.
lab "unknown" {
  title = "Typo"
}

stack {
  mysql {}
}

tabel "orders" {} # ERROR: Unsupported block type

table "ok" {
  key = [] # not reported: the load stopped
}
