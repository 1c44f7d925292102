lab "services" {
  title = "Services and topics that do not exist"
}

stack {
  mysql {}
  kafka {}
  flink {}
}

table "t" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {
    topic = "orders-wide"
  }
}

experiment "one" {
  number = 1
  title  = "Compose"

  step "stop" {
    compose = "stop task-manager" # ERROR: Unknown service
  }
}

experiment "two" {
  number = 2
  title  = "Kafka"

  step "read" {
    kafka = { topic = "orders_wide" } # ERROR: Unknown topic
  }
}

experiment "three" {
  number = 3
  title  = "Fine"

  step "read" {
    kafka = { topic = "orders-wide", key = "1" }
  }

  step "restart" {
    compose = { action = "restart", service = "jobmanager" }
  }
}

experiment "usage" {
  number = 9
  title  = "Usage"

  step "cpu" {
    usage = { services = ["mysql", "task-manager"] } # ERROR: Unknown service
  }
}
