preset "latest" {
  engine = "clickhouse"
  title  = "Latest wide rows"
  sql    = file("sql/latest.sql")
}

preset "counts" {
  engine      = "mysql"
  description = "Orders per status."
  sql         = "SELECT status, COUNT(*) FROM shop_orders GROUP BY status;"
}
