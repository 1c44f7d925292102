job "wide" {
  mode        = "streaming"
  description = "Orders joined with payments."
  reads       = [table.orders, table.payments]
  writes      = table.wide
  query       = file("sql/wide.sql")
  settings = {
    "table.exec.state.ttl" = "1h"
  }
}

job "summary" {
  mode   = "batch"
  reads  = [table.wide]
  writes = table.summary
  query  = <<-SQL
    SELECT status, COUNT(*) AS n
    FROM fluss_catalog.lab.wide
    GROUP BY status;
  SQL
}
