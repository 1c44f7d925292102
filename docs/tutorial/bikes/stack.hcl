stack {
  mysql {
    database = "bikeshare"
  }

  kafka {}

  flink {
    taskmanagers        = 1
    parallelism         = 1
    checkpoint_interval = "10s"
  }

  clickhouse {
    database = "dashboard"
  }
}
