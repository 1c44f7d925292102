# Times plus and minus durations: a due date two weeks after the loan,
# from the same row, the parent row and the event's time.
lab "time_arithmetic" {
  title = "Loans due two weeks after they are made"
}

stack {
  mysql {}
}

table "loans" {
  key = ["loan_id"]

  column "loan_id" { type = "bigint" }
  column "created_at" { type = "timestamp(3)" }
  column "due_at" { type = "timestamp(3)" }
  column "due_day" { type = "date" }
  column "closed_at" {
    type     = "timestamp(3)"
    nullable = true
  }
  store "mysql" {}
}

table "returns" {
  key = ["return_id"]

  column "return_id" { type = "bigint" }
  column "loan_id" { type = "bigint" }
  column "returned_at" { type = "timestamp(3)" }
  column "was_due_at" { type = "timestamp(3)" }
  store "mysql" {}
}

producer "desk" {
  table = table.loans
  rate  = 1

  field "loan_id" { value = sequence(1) }
  field "created_at" { value = now() }
  field "due_at" { value = field("created_at") + duration("14d") }
  field "due_day" { value = (now() + duration("2w")) - duration("1h") }

  follow "return" {
    table   = table.returns
    delay   = exponential("7d", { max = "30d" })
    outcome = weighted({ BACK = 9, LOST = 1 })
    never   = "LOST"

    field "return_id" { value = sequence(1) }
    field "loan_id" { value = parent("loan_id") }
    field "returned_at" { value = now() }
    field "was_due_at" { value = duration("14d") + parent("created_at") }

    update {
      closed_at = now() + duration("1d") + duration("12h")
    }
  }
}
