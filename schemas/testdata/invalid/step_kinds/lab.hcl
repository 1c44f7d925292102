lab "steps" {
  title = "Steps that do two things, or nothing"
}

stack {
  mysql {}
  flink {}
}

preset "p" {
  engine = "mysql"
  sql    = "SELECT 1"
}

experiment "one" {
  number = 1
  title  = "One"

  step "two_things" { # ERROR: Step does several things
    note = "look"
    wait = "5s"
  }

  step "nothing" { # ERROR: Step does nothing
    title = "Just a title"
  }

  step "preset_and_sql" {
    query = preset.p
    sql   = "SELECT 2" # ERROR: Preset and SQL
  }

  step "engine_of_preset" {
    query  = preset.p
    engine = "mysql" # ERROR: Engine of a preset
  }

  step "no_engine" {
    sql = "SELECT 3" # ERROR: Missing engine
  }

  step "bad_engine" {
    engine = "flink" # ERROR: Invalid value
    sql    = "SELECT 4"
  }

  step "max_rows_on_note" {
    note     = "x"
    max_rows = 5 # ERROR: max_rows outside a query
  }

  step "engine_on_lab" {
    lab    = "smoke"
    engine = "mysql" # ERROR: engine outside a query
  }

  step "capture_from_note" {
    note    = "x"
    capture = { a = 1 } # ERROR: Nothing to capture
  }

  step "bad_capture_name" {
    query   = preset.p
    capture = { "Order ID" = result.rows[0] } # ERROR: Invalid capture name
  }

  step "bad_lab" {
    lab = "deploy" # ERROR: Invalid value
  }

  step "bad_compose" {
    compose = "stop" # ERROR: Invalid compose step
  }

  step "bad_action" {
    compose = "kill taskmanager" # ERROR: Invalid compose action
  }

  step "bad_flink" {
    flink = { show = ["state", "logs"] } # ERROR: Unknown item
  }

  step "bad_usage_arg" {
    usage = { service = "mysql" } # ERROR: Unsupported argument
  }

  step "bad_flink_arg" {
    flink = { jobs = [] } # ERROR: Unsupported argument
  }

  step "no_topic" {
    kafka = { key = "1" } # ERROR: Missing topic
  }

  step "unknown_attribute" {
    note  = "x"
    notes = "y" # ERROR: Unsupported argument
  }
}

experiment "empty" { # ERROR: Experiment without steps
  number = 2
  title  = "No steps"
}
