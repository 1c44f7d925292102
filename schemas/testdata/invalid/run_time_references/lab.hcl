lab "captures" {
  title = "Values no earlier step captures"
}

stack {
  mysql {}
  clickhouse {}
}

preset "latest" {
  engine = "clickhouse"
  sql    = "SELECT 1 AS order_id"
}

experiment "first" {
  number = 1
  title  = "First"

  step "early" {
    engine = "mysql"
    sql    = "SELECT ${step.pick.order_id}" # ERROR: Reference to a later step
  }

  step "pick" {
    query = preset.latest
    capture = {
      order_id = result.rows[0].order_id
    }
  }

  step "plain" {
    query = preset.latest
  }

  step "selfish" {
    query   = preset.latest
    capture = { order_id = step.selfish.order_id } # ERROR: Reference to the step itself
  }

  step "other_name" {
    engine = "mysql"
    sql    = "SELECT ${step.pick.customer_id}" # ERROR: Value not captured
  }

  step "nothing_captured" {
    engine = "mysql"
    sql    = "SELECT ${step.plain.order_id}" # ERROR: Value not captured
  }

  step "no_such_step" {
    engine = "mysql"
    sql    = "SELECT ${step.pik.order_id}" # ERROR: Reference to unknown step
  }

  step "incomplete" {
    engine = "mysql"
    sql    = "SELECT ${step.pick}" # ERROR: Incomplete reference
  }

  step "later_experiment" {
    engine = "mysql"
    sql    = "SELECT ${experiment.second.pick.order_id}" # ERROR: Reference to a later experiment
  }

  step "unknown_experiment" {
    engine = "mysql"
    sql    = "SELECT ${experiment.zeroth.pick.order_id}" # ERROR: Reference to unknown experiment
  }

  step "undeclared_var" {
    engine = "mysql"
    sql    = "SELECT ${step.pick.order_id} + ${var.offset}" # ERROR: Reference to undeclared variable
  }

  step "unknown_root" {
    engine = "mysql"
    sql    = "SELECT ${step.pick.order_id} + ${local.offset}" # ERROR: Unknown name in a run-time expression
  }
}

experiment "second" {
  number = 2
  title  = "Second"

  step "pick" {
    query   = preset.latest
    capture = { order_id = result.rows[0].order_id }
  }

  step "from_first" {
    engine = "mysql"
    sql    = "SELECT ${experiment.first.pick.order_id}"
  }

  step "from_first_missing" {
    engine = "mysql"
    sql    = "SELECT ${experiment.first.pick.nope}" # ERROR: Value not captured
  }

  step "from_first_unknown_step" {
    engine = "mysql"
    sql    = "SELECT ${experiment.first.pock.order_id}" # ERROR: Reference to unknown step
  }

  step "later" {
    query = preset.latest
  }
}
