# The lakes switched off by a variable: what needs them is marked
# unavailable and warned about, never dropped silently. A store on a
# component the stack does not declare at all is warned about too.
lab "no_lakes" {
  title = "Without Fluss and Iceberg"
}

variable "lakes" {
  type    = bool
  default = true
}

stack {
  mysql {}
  kafka {}
  flink {}
  fluss {
    enabled = var.lakes
  }
  iceberg {
    enabled = var.lakes
  }
}

table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
  store "clickhouse" {} # WARNING: Store without component
}

table "wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
  store "fluss" {}
  store "iceberg" {}
}

table "audit" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
}

job "wide" {
  mode   = "streaming"
  reads  = [table.orders]
  writes = table.wide
  query  = "SELECT id FROM orders"
}

job "audit" { # WARNING: Job unavailable in this stack
  mode   = "batch"
  reads  = [table.wide]
  writes = table.audit
  query  = "SELECT COUNT(*) AS id FROM iceberg_catalog.lab.wide"
}

experiment "stream" {
  number = 1
  title  = "Runs without lakes"
  needs  = [job.wide]

  step "look" {
    kafka   = { topic = "wide", tail = 1 }
    capture = { n = length(result.messages) }
  }
}

experiment "audit" { # WARNING: Experiment unavailable in this stack
  number = 2
  title  = "Needs the lakes"
  needs  = [job.audit]

  step "run" {
    lab     = "batch"
    capture = { ok = result.ok }
  }
}

experiment "after_audit" { # WARNING: Experiment unavailable in this stack
  number = 3
  title  = "Uses what the audit captured"

  step "again" {
    engine = "mysql"
    sql    = "SELECT ${experiment.audit.run.ok}"
  }
}
