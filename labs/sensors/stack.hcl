stack {
  mysql {
    database = "plant"
  }

  kafka {}

  flink {
    taskmanagers        = 1
    parallelism         = 1
    checkpoint_interval = "10s"
    state_ttl           = "1h"

    restart {
      strategy = "fixed-delay"
      attempts = 10
      delay    = "5s"
    }
  }

  clickhouse {
    database = "telemetry"
  }

  console {
    port = 8088
  }
}
