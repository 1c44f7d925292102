lab "stack" {
  title = "A stack that cannot start"
}

stack {
  mysql {}
  flink {
    taskmanagers = 1
    slots        = 2
    parallelism  = 4 # ERROR: Parallelism exceeds slots
    state_backend = "memory" # ERROR: Invalid value
    restart {
      strategy = "always" # ERROR: Invalid value
      attempts = -1 # ERROR: Invalid number
    }
  }
  fluss {
    lake = "hudi" # ERROR: Invalid value
  }
  iceberg {
    catalog = "glue" # ERROR: Invalid value
  }
  console {
    port = 0 # ERROR: Invalid number
  }
}
