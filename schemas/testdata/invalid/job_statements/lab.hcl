# A job's query is one SELECT, rendered as INSERT INTO … SELECT: a second
# statement would run on its own in the job's SQL, and an empty query
# inserts nothing.
lab "job_statements" {
  title = "Job queries of more or less than one statement"
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

# Semicolons in a string and in comments split nothing: valid.
job "quoted" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "SELECT id, status FROM orders WHERE status <> 'a;b' -- c;d\n/* e;f */"
}

job "inline" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "SELECT id, status FROM orders; DROP TABLE orders; SELECT 1" # ERROR: More than one statement in a job query # ERROR: More than one statement in a job query
}

job "from_file" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = file("jobs/two.sql")
}

job "empty" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "" # ERROR: Empty job query
}

job "comments_only" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = file("jobs/comments.sql")
}

job "unclosed" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "SELECT id, status FROM orders WHERE status <> 'a" # ERROR: Unreadable job query
}

job "copy" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.copy
  query  = "SELECT id, status FROM orders"
}

# A control's query replaces the job's: one statement too.
control "dropper" {
  title = "A mutant that drops a table"
  job   = job.copy
  query = "SELECT id, 'X' AS status FROM orders;\nDROP TABLE orders" # ERROR: More than one statement in a job query
}
