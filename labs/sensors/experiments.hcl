experiment "baseline" {
  number   = 1
  title    = "Establish a baseline"
  question = "Do readings flow from MySQL through both jobs into ClickHouse?"
  intro    = "Run the smoke checks, then look at the newest readings, windows and site counts."
  record   = ["the smoke result", "the newest reading", "the newest window", "the site counts"]

  step "smoke" {
    title = "Run the smoke checks"
    lab   = "smoke"
  }

  step "readings" {
    title = "The newest readings in MySQL"
    query = preset.latest_readings

    expect {
      condition = length(result.rows) > 0
      message   = "The devices are writing readings."
    }
  }

  step "jobs" {
    title = "Both Flink jobs"
    flink = { show = ["state", "checkpoints"] }
  }

  expected       = "Smoke passes; MySQL has readings, both jobs run, ClickHouse holds windows and site counts."
  interpretation = "The reference point for the next two cases."
}

experiment "window_closes" {
  number   = 2
  title    = "Watch a window close"
  question = "When does an event-time window's result appear, and does it change afterwards?"
  intro    = "Take the newest reading, wait until the window it falls into appears in ClickHouse, then look again a little later."
  record   = ["the reading followed", "the window it fell into", "how long the window took to appear", "its versions"]

  step "reading" {
    title  = "The newest reading"
    engine = "mysql"
    sql    = "SELECT reading_id, device_id, temperature, measured_at FROM readings ORDER BY reading_id DESC LIMIT 1"
    capture = {
      device_id   = result.rows[0].device_id
      measured_at = result.rows[0].measured_at
    }
  }

  step "window" {
    title  = "Its window in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT device_id, window_start, window_end, readings, avg_temperature, max_temperature FROM telemetry.device_window FINAL WHERE device_id = ${step.reading.device_id} AND window_start <= toDateTime64(${sql_string(step.reading.measured_at)}, 3) AND window_end > toDateTime64(${sql_string(step.reading.measured_at)}, 3)"
  }

  step "wait_for_window" {
    title = "Refresh until the window appears"
    text  = "The window is written when the watermark passes its end: up to ten seconds for the window to end, the lateness, and then Kafka and ClickHouse's Kafka engine. The time this step took is how long that was from here."
    wait = {
      rerun    = step.window
      until    = length(result.rows) > 0
      interval = "1s"
      timeout  = "2m"
    }
    capture = {
      window_start = result.rows[0].window_start
      readings     = result.rows[0].readings
    }

    expect {
      condition = length(result.rows) > 0 && result.rows[0].readings > 0
      message   = "The window appears, counting the reading followed among its readings."
    }
  }

  step "settle" {
    title = "Let the next windows close"
    wait  = "15s"
  }

  step "versions" {
    title  = "Every version ClickHouse received of that window"
    text   = "Without FINAL: one row per message of the window's key in device-window."
    engine = "clickhouse"
    sql    = "SELECT device_id, window_start, readings, avg_temperature FROM telemetry.device_window WHERE device_id = ${step.reading.device_id} AND window_start = toDateTime64(${sql_string(step.wait_for_window.window_start)}, 3)"

    expect {
      condition = length(result.rows) == 1 && result.rows[0].readings == step.wait_for_window.readings
      message   = "A closed window is written once and never changes."
    }
  }

  expected       = "The window appears only after its end plus the lateness has passed in event time, and then never changes: one message, one row."
  interpretation = "A window's result is final because the watermark promised that no earlier reading will come. A reading later than the lateness would be dropped, not added."
}

experiment "aggregate_changes" {
  number   = 3
  title    = "Watch an unbounded aggregate change"
  question = "What does a row of a continuous aggregate mean at a given moment?"
  intro    = "Read the hot-reading count of the busiest site, wait for more hot readings, and read it again."
  record   = ["the site and its count before", "the count after", "how many versions the key has"]

  step "before" {
    title = "The hot-reading counts now"
    query = preset.site_heat
    capture = {
      site  = result.rows[0].site
      count = result.rows[0].hot_readings
    }
  }

  step "grows" {
    title  = "Refresh until the count of that site changes"
    text   = "Every hot reading updates the site's row: Flink retracts the old count and emits the new one, and the upsert topic keeps the newest under the site's key."
    engine = "clickhouse"
    sql    = "SELECT site, hot_readings, hottest, last_hot_at FROM telemetry.site_heat FINAL WHERE site = ${sql_string(step.before.site)}"
  }

  step "wait_for_change" {
    title = "Wait for the count to change"
    wait = {
      rerun    = step.grows
      until    = length(result.rows) > 0 && result.rows[0].hot_readings > step.before.count
      interval = "2s"
      timeout  = "3m"
    }

    expect {
      condition = length(result.rows) > 0 && result.rows[0].hot_readings > step.before.count
      message   = "The same key now carries a larger count: the aggregate is never final."
    }
  }

  step "versions" {
    title  = "How many versions of the site ClickHouse holds"
    text   = "Without FINAL and before a merge, one row per version received."
    engine = "clickhouse"
    sql    = "SELECT count() AS versions, max(hot_readings) AS newest FROM telemetry.site_heat WHERE site = ${sql_string(step.before.site)}"
  }

  expected       = "The count under one key grows while the job runs; ClickHouse keeps several versions until it merges them, and FINAL shows the newest."
  interpretation = "A continuous aggregate is a value at a moment, not a result: compare it with a window, which is final once closed."
}
