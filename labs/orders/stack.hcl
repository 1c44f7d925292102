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
    state_backend       = var.state_backend

    # Experiment 06 keeps a TaskManager away for about 45 s, and every
    # attempt in that time fails at once for want of slots
    # (NoResourceAvailableException): at 5 s the ten attempts were nearly
    # all spent (10 of 10 in one run); at 10 s about five are.
    restart {
      strategy = "fixed-delay"
      attempts = 10
      delay    = "10s"
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
