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

  # The lakehouse of most Flink CDC users: Flink writes a Paimon table
  # itself, committing a snapshot at each checkpoint.
  paimon {
    database = "lab"
  }

  console {
    port = 8088
  }
}
