stack {
  mysql {
    version  = "8.0.40"
    database = "shop"
    port     = 3307
  }
  kafka {}
  flink {
    taskmanagers        = 2
    slots               = 2
    parallelism         = 4
    checkpoint_interval = "30s"
    state_ttl           = "2h"

    restart {
      strategy = "exponential-delay"
      attempts = 3
      delay    = "1s"
    }
  }
  clickhouse {
    database = "serving"
  }
  fluss {
    freshness = "1m"
  }
  iceberg {}
  kafka_ui {
    port = 8090
  }
  console {}
  batch_loop {
    pause = "1m"
  }
}
