stack {
  mysql {
    database = "shop"
  }

  kafka {}

  flink {
    taskmanagers        = 1
    slots               = 4
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
    database = "analytics"
  }

  fluss {
    enabled   = var.lakes
    lake      = "paimon"
    freshness = "30s"
    database  = "lab"
  }

  iceberg {
    enabled  = var.lakes
    catalog  = "hadoop"
    database = "lab"
  }

  kafka_ui {}

  console {
    port = 8088
  }

  batch_loop {
    pause = "5m"
  }
}
