table "loans" {
  key = ["id"]

  column "id" { type = "bigint" }
  column "status" { type = "string(16)" }
  column "due_at" {
    type    = "timestamp(3)"
    nulable = true # ERROR: Unsupported argument
  }

  store "mysql" {}
}

table "Repayments" { # ERROR: Invalid name
  key = ["id"]

  column "id" { type = "bigint" }
  column "loan_id" { type = "bigint" }

  store "mysql" {}
}
