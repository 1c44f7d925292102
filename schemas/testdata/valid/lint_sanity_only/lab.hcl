# An experiment whose every expect only checks that a step returned rows
# or messages shows that the steps found something, not its answer. One
# expect that measures more is enough.
lab "sanity_only" {
  title = "Experiments that only check for rows"
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

experiment "something" { # WARNING: Experiment only checks that steps returned something
  number   = 1
  title    = "Something is there"
  question = "Do orders reach Kafka?"

  step "source" {
    engine = "mysql"
    sql    = "SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 5"

    expect {
      condition = length(result.rows) > 0
      message   = "MySQL holds orders."
    }
    expect {
      condition = 0 < length(result.rows) && result.row_count >= 1
      message   = "The same, written otherwise."
    }
  }

  step "topic" {
    kafka = {
      topic = "orders"
      tail  = 5
    }

    expect {
      condition = length([for m in result.messages : m if !m.tombstone]) > 0 && result.count != 0
      message   = "The topic has messages."
    }
  }
}

experiment "answers" {
  number = 2
  title  = "Kafka has the newest order"

  step "source" {
    engine  = "mysql"
    sql     = "SELECT MAX(order_id) AS last_id FROM orders"
    capture = { last_id = result.rows[0].last_id }

    expect {
      condition = length(result.rows) > 0
      message   = "MySQL holds orders."
    }
  }

  step "topic" {
    kafka = {
      topic = "orders"
      key   = jsonencode({ order_id = step.source.last_id })
    }

    expect {
      condition = length(result.messages) == 1
      message   = "The newest order is in Kafka, once."
    }
  }
}
