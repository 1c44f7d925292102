stack {
  mysql {
    database = "shop"
  }

  kafka {}

  flink {
    # Slots are sized by labgen from what the lab runs at once, plus one.
    taskmanagers        = var.taskmanagers
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
