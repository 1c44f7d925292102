# An expect that compares a sampling step's result or samples with one of
# its own samples compares the series with itself over the seconds it
# samples: a value that never goes back cannot fail it. Compared with a
# capture of an earlier step, or a sample with a constant, it can.
lab "own_sample" {
  title = "Expectations over a step's own samples"
}

stack {
  mysql {}
  kafka {}
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }

  store "mysql" {}
  store "kafka" {
    topic = "orders"
  }
}

experiment "offsets" {
  number = 1
  title  = "End offsets move on"

  step "offsets" {
    kafka = {
      topic   = "orders"
      offsets = true
    }
    capture = { end = result.end }
  }

  step "after" {
    wait = {
      rerun    = step.offsets
      "for"    = "4s"
      interval = "2s"
    }
    sample = { end = result.end }

    expect {
      condition = result.end >= samples[0].end # WARNING: Expectation compares the step with its own sample
      message   = "The end offsets did not go back."
    }
    expect {
      condition = samples[length(samples) - 1].end >= samples[0].end # WARNING: Expectation compares the step with its own sample
      message   = "The last sample is not below the first."
    }
    expect {
      condition = result.end > step.offsets.end
      message   = "The topic grew since the step before."
    }
    expect {
      condition = samples[length(samples) - 1].ms <= 10000
      message   = "Sampling ended in time."
    }
  }

  # A step that samples its one run.
  step "counted" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"
    sample = { n = result.rows[0].n }

    expect {
      condition = result.rows[0].n == samples[0].n # WARNING: Expectation compares the step with its own sample
      message   = "Its own sample."
    }
  }
}
