stack {
  postgres {
    database = "shop"
  }

  kafka {}

  flink {
    taskmanagers        = 1
    parallelism         = 1
    checkpoint_interval = "10s"
    state_ttl           = "1h"
  }

  clickhouse {
    database = "analytics"
  }

  console {
    port = 8088
  }
}
