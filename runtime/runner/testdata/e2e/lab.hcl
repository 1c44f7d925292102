# A small lab for the runner's end-to-end test: MySQL, Kafka and
# ClickHouse, no Flink. The test creates the data; the experiments trace an
# order, wait for its payment, and revisit it after a pause.

lab "mini" {
  title = "A small lab for the runner"
  seed  = 42
}

variable "pause" {
  type    = string
  default = "4s"
}

stack {
  mysql {
    database = "shop"
  }
  kafka {}
  clickhouse {
    database = "analytics"
  }
}

table "orders" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  column "category" { type = "string(32)" }
  store "mysql" {}
}

table "payments" {
  key = ["payment_id"]
  column "payment_id" { type = "bigint" }
  column "order_id" { type = "bigint" }
  column "payment_status" { type = "string(16)" }
  store "mysql" {}
}

table "wide" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  column "payment_status" { type = "string(16)" }
  store "kafka" {
    topic = "wide"
  }
  store "clickhouse" {
    version = "order_id"
  }
}

experiment "pick" {
  number   = 1
  title    = "Pick an order"
  question = "Which order has no payment yet, and what do Kafka and ClickHouse hold of it?"

  step "smoke" {
    title = "Smoke checks"
    lab   = "smoke"
  }

  step "pending" {
    title  = "Orders and their payments"
    engine = "mysql"
    sql    = "SELECT o.order_id, o.category, p.payment_status FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id ORDER BY o.order_id"
    capture = {
      order_id = [for r in result.rows : r.order_id if r.payment_status == null][0]
      category = [for r in result.rows : r.category if r.payment_status == null][0]
      unpaid   = length([for r in result.rows : r if r.payment_status == null])
      orders   = length(result.rows)
    }
    expect {
      condition = length(result.rows) == 3
      message   = "MySQL holds three orders."
    }
  }

  step "kafka" {
    title = "Every message of its key"
    kafka = {
      topic = "wide"
      key   = jsonencode({ order_id = step.pending.order_id })
    }
    expect {
      condition = length([for m in result.messages : m if m.tombstone]) == 1
      message   = "One tombstone between the versions."
    }
  }

  step "serving" {
    title  = "Its rows in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT order_id, payment_status FROM wide WHERE order_id = ${step.pending.order_id} ORDER BY version"
    expect {
      condition = length(result.rows) > 5
      message   = "ClickHouse holds more than five versions (deliberately not held)."
    }
  }

  step "broken" {
    title  = "A query of a column that does not exist"
    engine = "mysql"
    sql    = "SELECT no_such_column FROM orders"
  }

  step "nothing" {
    title  = "A capture that finds nothing"
    engine = "mysql"
    sql    = "SELECT order_id FROM orders WHERE order_id < 0"
    capture = {
      none = result.rows[0].order_id
    }
  }

  step "needs_nothing" {
    title  = "A step that needs the missing capture"
    engine = "mysql"
    sql    = "SELECT ${step.nothing.none} AS n"
  }

  step "remark" {
    note = "Steps above failed on purpose; the record keeps their errors verbatim."
  }

  measure "unpaid_share" {
    title = "Orders without a payment"
    value = step.pending.unpaid / 3 * 100
    unit  = "%"
  }

  measure "missing" {
    title = "What a missing capture measures"
    value = step.nothing.none
  }

  # What the value summarises: one evaluated from a capture, one a static
  # duration, and one whose capture is missing (the value stays).
  measure "unpaid" {
    title      = "Orders without a payment, counted"
    value      = step.pending.unpaid
    unit       = "orders"
    samples    = step.pending.orders
    window     = step.nothing.none
    resolution = "1s"
  }
}

experiment "payment" {
  number = 2
  title  = "Wait for the payment"

  step "payment" {
    title  = "Its payment in MySQL"
    engine = "mysql"
    sql    = "SELECT payment_id, payment_status FROM payments WHERE order_id = ${experiment.pick.pending.order_id}"
  }

  step "wait_for_payment" {
    title = "Refresh until the payment arrives"
    wait = {
      rerun    = step.payment
      until    = length(result.rows) > 0
      interval = "200ms"
      timeout  = "30s"
    }
    capture = {
      status = result.rows[0].payment_status
    }
  }

  step "never" {
    title = "A condition that never holds"
    wait = {
      rerun    = step.payment
      until    = length(result.rows) > 5
      interval = "200ms"
      timeout  = "1s"
    }
  }

  step "stopper" {
    title      = "A failing step that stops the experiment"
    engine     = "mysql"
    sql        = "SELECT also_missing FROM orders"
    on_failure = "stop"
  }

  step "after_stop" {
    title  = "Never runs"
    engine = "mysql"
    sql    = "SELECT 1"
  }
}

experiment "later" {
  number = 3
  title  = "Revisit after a pause"

  step "pause" {
    wait = var.pause
  }

  step "revisit" {
    title  = "The order again"
    engine = "mysql"
    sql    = "SELECT order_id, category FROM orders WHERE order_id = ${experiment.pick.pending.order_id}"
    expect {
      condition = result.rows[0].category == experiment.pick.pending.category
      message   = "Same category as when it was picked."
    }
  }

  step "status" {
    title  = "The captured payment status"
    engine = "clickhouse"
    sql    = "SELECT '${experiment.payment.wait_for_payment.status}' AS status"
  }
}

experiment "jobs" {
  number = 4
  title  = "The Flink jobs"

  step "jobs" {
    flink = { show = ["state"] }
  }
}
