lab "waits" {
  title = "Waits that cannot work"
}

stack {
  mysql {}
}

experiment "one" {
  number = 1
  title  = "One"

  step "read" {
    engine = "mysql"
    sql    = "SELECT 1"
  }

  step "say" {
    note = "hello"
  }

  step "rerun_later" {
    wait = {
      rerun = step.later # ERROR: Reference to unknown step
      until = length(result.rows) > 0
    }
  }

  step "rerun_note" {
    wait = {
      rerun = step.say # ERROR: Step cannot be re-run
      until = true
    }
  }

  step "no_until" {
    wait = { rerun = step.read } # ERROR: Missing condition
  }

  step "until_alone" {
    wait = {
      until   = true # ERROR: Condition without a step
      timeout = "1m"
    }
  }

  step "nothing" {
    wait = { interval = "1s" } # ERROR: Wait for what
  }

  step "both" {
    wait = { "for" = "10s", rerun = step.read, until = true } # ERROR: Two kinds of wait
  }

  step "not_object" {
    wait = ["10s"] # ERROR: Invalid wait step
  }

  step "negative" {
    wait = "-5s" # ERROR: Invalid duration
  }

  step "twice" {
    wait = {
      rerun = step.read
      until = true
      rerun = step.read # ERROR: Duplicate argument
    }
  }

  step "quoted_for" {
    wait = { "for" = "1s" }
  }

  step "later" {
    engine = "mysql"
    sql    = "SELECT 2"
  }
}
