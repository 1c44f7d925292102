lab "samples" {
  title = "Samples that cannot work"
}

stack {
  mysql {}
  kafka {}
}

table "orders" {
  key = ["id"]
  column "id" {
    type = "bigint"
  }
  store "mysql" {}
  store "kafka" {
    topic = "orders"
  }
}

experiment "one" {
  number = 1
  title  = "One"

  step "read" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"
    sample = { n = result.rows[0].n }
  }

  step "sampled" {
    wait = {
      rerun    = step.read
      "for"    = "10s"
      interval = "1s"
    }
    sample  = { rows = { mysql = result.rows[0].n } }
    capture = { last_ms = samples[length(samples) - 1].ms }
  }

  step "say" {
    note   = "hello"
    sample = { x = 1 } # ERROR: Nothing to sample
  }

  step "bad_name" {
    engine = "mysql"
    sql    = "SELECT 1 AS n"
    sample = { "Row Count" = result.rows[0].n } # ERROR: Invalid sample name
  }

  step "no_samples_here" {
    engine  = "mysql"
    sql     = "SELECT 1 AS n"
    capture = { n = samples[0].n } # ERROR: samples is not available here
  }

  step "for_and_timeout" {
    wait = {
      rerun    = step.read
      "for"    = "10s"
      timeout  = "1m" # ERROR: Timeout of a sampling wait
    }
  }

  step "offsets" {
    kafka = {
      topic   = "orders"
      offsets = true # ERROR: Offsets and messages
      tail    = 5
    }
  }

  step "offsets_ok" {
    kafka = {
      topic   = "orders"
      offsets = true
    }
    sample = { end = result.end }
  }
}
