# try(…, false) in a condition turns an error (an index into an empty
# list) into "not held": an empty or broken result reads as a measured
# no. Any other fallback, and a guard written out, are left alone.
lab "try_false" {
  title = "Conditions that read an error as not held"
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

experiment "newest" {
  number = 1
  title  = "Kafka has the newest order"

  step "source" {
    engine  = "mysql"
    sql     = "SELECT MAX(order_id) AS last_id FROM orders"
    capture = { last_id = result.rows[0].last_id }
  }

  step "topic" {
    kafka = {
      topic = "orders"
      tail  = 5
    }

    expect {
      condition = try(jsondecode(result.messages[length(result.messages) - 1].value).order_id == step.source.last_id, false) # WARNING: Condition reads an error as not held
      message   = "The newest message is the newest order."
    }
    expect {
      condition = result.count > 0 && (try(jsondecode(result.messages[0].value).order_id, 0) > 0 || try(result.messages[1].key != "", (false))) # WARNING: Condition reads an error as not held
      message   = "Nested, and the fallback in parentheses."
    }
    expect {
      condition = try(try(result.messages[0].key, "") != "", false) # WARNING: Condition reads an error as not held
      message   = "A try within one: only the outer falls back to false."
    }
    expect {
      condition = try(result.messages[0].key != "", true)
      message   = "Falls back to true: no warning here."
    }
    expect {
      condition = try(jsondecode(result.messages[0].value).order_id, 0) <= step.source.last_id
      message   = "Falls back to a number."
    }
    expect {
      condition = length(result.messages) > 0 && jsondecode(result.messages[length(result.messages) - 1].value).order_id == step.source.last_id
      message   = "The guard written out."
    }
  }
}
