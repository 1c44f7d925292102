lab "durations" {
  title = "Durations that are not durations"
}

stack {
  mysql {}
  kafka {}
  flink {
    checkpoint_interval = "10 seconds" # ERROR: Invalid duration
    state_ttl           = "0s" # ERROR: Invalid duration
    restart {
      delay = "5" # ERROR: Invalid duration
    }
  }
  fluss {
    freshness = 30 # ERROR: Invalid duration
  }
  batch_loop {
    pause = "-1m" # ERROR: Invalid duration
  }
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
    kafka = { topic = "t", timeout = "1 minute" } # ERROR: Invalid duration
  }

  step "show" {
    flink   = {}
    timeout = "forever" # ERROR: Invalid duration
  }

  step "pause" {
    wait = "a while" # ERROR: Invalid duration
  }

  step "poll" {
    wait = {
      rerun    = step.read
      until    = true
      interval = "0s" # ERROR: Invalid duration
      timeout  = "1d" # ERROR: Invalid duration
    }
  }
}
