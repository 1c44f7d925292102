experiment "second" {
  number   = 2
  title    = "Uses what the first captured"
  question = "Does the order come back?"
  needs    = [job.wide]
  record   = ["the order ID"]

  step "again" {
    engine = "mysql"
    sql    = "SELECT * FROM shop_orders WHERE order_id = ${experiment.first.pick.order_id}"
  }

  step "key" {
    kafka = {
      topic = "wide-orders"
      key   = "${experiment.first.pick.order_id}"
      max   = 5
    }
  }

  step "tail" {
    kafka = { topic = "wide-orders", tail = 3, timeout = "5s" }
  }

  step "stop" {
    compose = { action = "stop", service = "taskmanager" }
  }

  step "start" {
    compose    = "start taskmanager"
    on_failure = "stop"
  }

  step "batch" {
    lab     = "batch"
    timeout = "10m"
  }

  step "pause" {
    wait = "10s"
  }

  step "done" {
    note = "Compare with ${var.note}."
  }
}

experiment "first" {
  number = 1
  title  = "Pick one"
  intro  = "Choose an order."

  step "pick" {
    query    = preset.latest
    max_rows = 5
    capture = {
      order_id = result.rows[0].order_id
      count    = length(result.rows)
    }

    expect {
      condition = length(result.rows) > 0
      message   = "There are rows."
    }
  }

  step "source" {
    title  = "The same order in MySQL"
    engine = "mysql"
    sql    = "SELECT * FROM shop_orders WHERE order_id = ${step.pick.order_id}"
  }

  step "job" {
    flink = {
      job  = job.wide
      show = ["state", "vertices"]
    }
    capture = { state = result.state }
  }

  step "until_paid" {
    wait = {
      rerun    = step.source
      until    = length(result.rows) > step.pick.count - 1
      interval = "1s"
      timeout  = "1m"
    }
  }

  expected       = "One order, seen twice."
  interpretation = "The key connects the stores."
}
