# Settings the runner would ignore are refused, so that a lab never
# believes it bounds or checks what it does not.
lab "ignored" {
  title = "Settings that would do nothing"
}

stack {
  mysql {}
  kafka {}
}

table "t" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {
    topic = "t"
  }
}

experiment "one" {
  number = 1
  title  = "One"

  step "read" {
    kafka   = { topic = "t" }
    timeout = "1m" # ERROR: Timeout of a kafka step
  }

  step "keyed" {
    kafka = { topic = "t", key = "1", tail = 5 } # ERROR: Tail with a key
  }

  step "pause" {
    wait    = "10s"
    timeout = "1m" # ERROR: Timeout of a wait step
  }

  step "say" {
    note = "Look at the topic."
    expect { # ERROR: Nothing to check
      condition = true
      message   = "never checked"
      sanity    = "a fixture"
    }
  }

  step "sampled" {
    wait = { "for" = "10s", interval = "1s" } # ERROR: Wait without a step to re-run
  }

  step "series" {
    sql    = "SELECT 1"
    engine = "mysql"
    sample = { n = length(samples) } # ERROR: samples is not available here
  }
}
