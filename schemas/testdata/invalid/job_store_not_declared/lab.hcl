lab "stores" {
  title = "A job reading a store its table does not have"
}

stack {
  mysql {}
  kafka {}
  flink {}
  fluss {}
}

table "wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

table "out" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

job "reads_lake" { # ERROR: Store not declared
  mode   = "batch"
  reads  = [table.wide]
  writes = table.out
  query  = "SELECT id FROM fluss_catalog.lab.wide"
}

experiment "e" {
  number = 1
  title  = "Needs the job"
  needs  = [job.reads_lake]
  step "n" {
    engine  = "mysql"
    sql     = "SELECT 1 AS x"
    capture = { x = result.rows[0].x }
  }
}

experiment "f" {
  number = 2
  title  = "Uses e's capture"
  step "n" {
    engine = "mysql"
    sql    = "SELECT ${experiment.e.n.x}"
  }
}
