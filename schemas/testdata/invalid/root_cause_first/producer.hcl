producer "lender" {
  table = table.loans
  rate  = 1

  field "id" { value = sequence(1) }
  field "status" { value = "OPEN" }

  follow "repayment" {
    table   = table.repayments # ERROR: Reference to undeclared table
    delay   = 30
    outcome = weighted({ PAID = 80, LATE = 20 })

    field "id" { value = sequence(1) }
    field "loan_id" { value = parent("id") }

    update {
      status = outcome()
      due_at = "2024-01-01 00:00:00" # ERROR: Unknown column
    }
  }
}
