lab "mutants" {
  title = "Mutant controls that cannot be built from their job"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "status" { type = "string(8)" }
  store "mysql" {}
}

table "copy" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "status" { type = "string(8)" }
  store "kafka" {}
}

job "copy" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "SELECT id, status FROM orders WHERE status <> 'X' AND status <> 'Y'"
}

control "stale" {
  title = "A mutant made of one edit: valid"
  job   = job.copy
  replace = {
    "SELECT id, status" = "SELECT id, 'NEW' AS status"
  }
}

control "gone" {
  title = "An edit of text the job does not have"
  job   = job.copy
  replace = {
    "COALESCE(status, 'NEW')" = "'NEW'" # ERROR: Not in the job's query
  }
}

control "twice" {
  title = "An edit of text that stands twice"
  job   = job.copy
  replace = {
    "status <>" = "status =" # ERROR: Ambiguous replace
  }
}

control "both" {
  title   = "A whole query and edits"
  job     = job.copy
  query   = "SELECT id, status FROM orders"
  replace = { "id" = "id" } # ERROR: Query and replace
}

control "alone" {
  title = "Edits without the job"
  replace = { "id" = "id" } # ERROR: Mutant without a job
}

control "same" {
  title = "A query that is the job's own"
  job   = job.copy
  query = "SELECT id, status FROM orders WHERE status <> 'X' AND status <> 'Y'" # ERROR: Mutant equals its job
}

control "stranger" {
  title = "A mutant that reads a table its job does not"
  job   = job.copy
  query = "SELECT id, status FROM copy" # ERROR: Query reads an undeclared table
}

control "no_restarts" {
  title    = "A mutant in its settings alone: valid"
  job      = job.copy
  settings = { "restart-strategy.type" = "none" }
}

control "same_settings" {
  title    = "Settings that are the job's own"
  job      = job.copy
  settings = {} # ERROR: Mutant equals its job
}

control "binlog_late" {
  title   = "A link slowed: valid"
  latency = { from = "mysql", to = "flink", add = "40s" }
}

control "kafka_late" {
  title   = "A link labgen cannot slow"
  latency = { from = "flink", to = "kafka", add = "40s" } # ERROR: Unknown link
}

control "never_late" {
  title   = "A latency that is no delay"
  latency = { from = "mysql", to = "flink", add = "0s" } # ERROR: Invalid duration
}
