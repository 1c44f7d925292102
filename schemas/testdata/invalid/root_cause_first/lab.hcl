# Root causes are listed first: a misspelt attribute leaves column due_at
# out of table loans, so the follow-up that updates it fails too, and an
# invalid name leaves table Repayments out, so the follow-up's reference
# to it fails. producer.hcl sorts before tables.hcl, but the schema error,
# then the table's own, come first (TestPinnedRanges pins the order).
lab "root_cause_first" {
  title = "A misspelt attribute"
}

stack {
  mysql {}
}
