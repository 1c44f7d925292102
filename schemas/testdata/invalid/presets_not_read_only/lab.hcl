lab "presets" {
  title = "Presets that do more than read"
}

stack {
  mysql {}
  clickhouse {}
}

preset "drop" {
  engine = "mysql"
  sql    = "DROP TABLE orders" # ERROR: Preset is not read-only
}

preset "insert" {
  engine = "clickhouse"
  sql    = "INSERT INTO t SELECT * FROM u" # ERROR: Preset is not read-only
}

preset "two" {
  engine = "mysql"
  sql    = "SELECT 1; SELECT 2" # ERROR: Preset is not read-only
}

preset "outfile" {
  engine = "mysql"
  sql    = file("sql/outfile.sql") # ERROR: Preset is not read-only
}

preset "settings" {
  engine = "clickhouse"
  sql    = "SELECT count() FROM t SETTINGS max_threads = 64" # ERROR: Preset is not read-only
}

preset "comment_trick" {
  engine = "mysql"
  sql    = "SELECT 1 /* harmless */; DELETE FROM orders" # ERROR: Preset is not read-only
}

preset "fine" {
  engine = "mysql"
  sql    = "SELECT ';DROP TABLE x' AS s -- ; DROP TABLE y"
}

preset "fine_show" {
  engine = "clickhouse"
  sql    = "SHOW CREATE TABLE analytics.t;"
}

preset "wrong_engine" {
  engine = "oracle" # ERROR: Invalid value
  sql    = "SELECT 1"
}

preset "missing_file" {
  engine = "mysql"
  sql    = file("sql/missing.sql") # ERROR: Invalid function argument
}

preset "outside" {
  engine = "mysql"
  sql    = file("../lab.hcl") # ERROR: Invalid function argument
}
