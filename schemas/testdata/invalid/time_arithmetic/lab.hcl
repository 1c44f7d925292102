lab "time_arithmetic" {
  title = "Times plus durations the loader refuses"
}

stack {
  mysql {}
}

table "loans" {
  key = ["loan_id"]

  column "loan_id" { type = "bigint" }
  column "member_id" { type = "int" }
  column "created_at" { type = "timestamp(3)" }
  column "due_at" { type = "timestamp(3)" }
  column "note" {
    type     = "string"
    nullable = true
  }
  column "days" {
    type     = "int"
    nullable = true
  }
  store "mysql" {}
}

table "returns" {
  key = ["return_id"]

  column "return_id" { type = "bigint" }
  column "loan_id" { type = "bigint" }
  column "returned_at" { type = "timestamp(3)" }
  store "mysql" {}
}

producer "desk" {
  table = table.loans
  rate  = 1

  field "loan_id" { value = sequence(1) }
  field "member_id" { value = uniform_int(1, 10) }
  field "created_at" { value = now() + 40 } # ERROR: A time plus a number
  field "due_at" { value = now() + duration("14x") } # ERROR: Invalid function argument
  field "note" { value = field("created_at") + duration("1d") } # ERROR: Value does not fit the column
  field "days" { value = duration("3d") } # ERROR: A duration alone
}

producer "late" {
  table = table.loans
  rate  = 1

  field "loan_id" { value = sequence(1) }
  field "member_id" { value = field("member_id") } # ERROR: Unknown field
  field "created_at" { value = field("due_at") + duration("1d") } # ERROR: Unknown field
  field "due_at" { value = field("member_id") + duration("1d") } # ERROR: A duration added to a non-time
  field "note" { value = now() - now() } # ERROR: Two times combined
  field "days" { value = uniform(1, 2) + duration("1d") } # ERROR: A duration plus a distribution

  follow "return" {
    table   = table.returns
    delay   = "1d"
    outcome = weighted({ BACK = 1 })

    field "return_id" { value = sequence(1) }
    field "loan_id" { value = parent("loan_id") }
    field "returned_at" { value = duration("1d") - parent("due_at") } # ERROR: A duration minus a time

    update {
      due_at = field("created_at") + duration("1d") # ERROR: field() in an update
      note   = duration("1d") + 1 # ERROR: A duration plus a number
    }
  }
}
