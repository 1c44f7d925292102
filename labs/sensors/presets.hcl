preset "latest_readings" {
  engine      = "mysql"
  title       = "Latest readings"
  description = "The twenty newest readings."
  sql         = file("presets/latest_readings.sql")
}

preset "latest_windows" {
  engine      = "clickhouse"
  title       = "Latest closed windows"
  description = "The newest device windows ClickHouse holds, one version each."
  sql         = file("presets/latest_windows.sql")
}

preset "site_heat" {
  engine      = "clickhouse"
  title       = "Hot readings per site"
  description = "The continuous aggregate, its newest version per site."
  sql         = file("presets/site_heat.sql")
}
