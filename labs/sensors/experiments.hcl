# Negative controls. `labgen run --controls` applies each, runs every
# experiment whose expectations name it again, and undoes it. Cancelling
# the jobs empties every result; the mutants keep rows flowing, wrong in
# one named way, and the frozen TaskManager keeps the jobs alive but late.
# (A mutant that emits every row twice is no control here: ClickHouse
# folds rows of one key that arrive in one insert, optimize_on_insert, so
# neither FINAL nor its absence shows the second copy.)
control "streams_cancelled" {
  title  = "The streaming jobs are cancelled"
  text   = "No window closes, no site count changes, no delivery is joined, while MySQL keeps taking readings and receipts."
  cancel = [job.device_window, job.site_heat, job.deliveries]
}

control "taskmanager_paused" {
  title     = "The TaskManager is frozen for 40 s"
  text      = "SIGSTOP to the TaskManager at the experiment's start, SIGCONT 40 s later: the jobs stay RUNNING and lose nothing, and every window is late."
  pause     = ["taskmanager"]
  pause_for = "40s"
}

control "windows_early" {
  title = "Windows are emitted before they close"
  text  = "A mutant of device_window: a running count per device and ten seconds, an aggregate that updates with every reading instead of a window that fires once when the watermark passes its end. Its keys are the windows', so the job's own SQL, submitted again, writes over them."
  job   = job.device_window
  # Submitted afresh, the mutant reads every reading MySQL holds before
  # it keeps up (about 25 s here); the window experiment 02 follows is
  # then served within the wait's cap.
  settle = "20s"
  replace = {
    "FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(measured_at), INTERVAL '10' SECOND))" = "FROM (SELECT device_id, temperature, TIMESTAMPADD(SECOND, -CAST(MOD(SECOND(measured_at), 10) AS INT), CAST(FLOOR(measured_at TO SECOND) AS TIMESTAMP(3))) AS window_start, TIMESTAMPADD(SECOND, 10 - CAST(MOD(SECOND(measured_at), 10) AS INT), CAST(FLOOR(measured_at TO SECOND) AS TIMESTAMP(3))) AS window_end FROM readings)"
  }
}

control "delay_in_ms" {
  title = "The join writes the delay in milliseconds"
  text  = "A mutant of deliveries: delay_s holds milliseconds (a unit slip); every match still arrives, on time, once."
  job   = job.deliveries
  replace = {
    "TIMESTAMPDIFF(SECOND, r.measured_at, c.received_at) AS delay_s" = "TIMESTAMPDIFF(SECOND, r.measured_at, c.received_at) * 1000 AS delay_s"
  }
}

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
      sanity    = "It reads MySQL only, which the pipeline does not write."
    }
  }

  step "jobs" {
    title = "The Flink jobs"
    flink = { show = ["state", "checkpoints", "restarts"] }

    expect {
      condition = length(distinct([for j in result.jobs : j.name if j.state == "RUNNING" && j.restarts_in_experiment == 0])) == 3
      message   = "Measured: the three streaming jobs run, and none has restarted since the experiment began."
      detects   = [control.streams_cancelled]
    }
  }

  step "newest_reading" {
    title  = "The newest reading's time in MySQL"
    engine = "mysql"
    sql    = "SELECT MAX(measured_at) AS measured_at FROM readings"
    capture = {
      measured_at = result.rows[0].measured_at
    }
  }

  step "windows_past" {
    title  = "Windows in ClickHouse that end after it"
    engine = "clickhouse"
    sql    = "SELECT count() AS windows FROM telemetry.device_window FINAL WHERE window_end > toDateTime64(${sql_string(step.newest_reading.measured_at)}, 3)"
  }

  step "windows_close" {
    title = "Refresh until a window past that reading has closed"
    text  = "A window closes when the watermark passes its end: up to its size (10 s) after the reading, the lateness, then Kafka and ClickHouse's Kafka engine. The last sample's time is how long that took from here."
    wait = {
      rerun    = step.windows_past
      until    = result.rows[0].windows > 0
      interval = "1s"
      timeout  = "90s"
    }

    expect {
      condition = result.rows[0].windows > 0 && samples[length(samples) - 1].ms <= 40000
      message   = "Measured: windows keep closing: one ending after the newest reading was served within 40 s."
      detects   = [control.streams_cancelled, control.taskmanager_paused]
    }
  }

  expected       = "Smoke passes; MySQL has readings, the three streaming jobs run, ClickHouse holds windows that keep closing and site counts."
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
    sql    = "SELECT device_id, window_start, window_end, dateDiff('millisecond', window_start, window_end) AS span_ms, readings, avg_temperature, max_temperature FROM telemetry.device_window FINAL WHERE device_id = ${step.reading.device_id} AND window_start <= toDateTime64(${sql_string(step.reading.measured_at)}, 3) AND window_end > toDateTime64(${sql_string(step.reading.measured_at)}, 3)"
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
      row          = result.rows[0]
      took_ms      = samples[length(samples) - 1].ms
    }

    expect {
      condition = length(result.rows) > 0 && result.rows[0].readings > 0 && samples[length(samples) - 1].ms <= 40000
      message   = "Measured: within 40 s the window appears, counting the reading followed among its readings."
      detects   = [control.taskmanager_paused]
    }
  }

  step "settle" {
    title = "Let the next windows close"
    wait  = "15s"
  }

  # The window as MySQL's readings define it, and how many devices sent
  # readings in it: what the job had to write, every reading being in by
  # now.
  step "source_window" {
    title  = "The same window computed from MySQL's readings"
    text   = "The device's readings in the window, their average and maximum, and how many devices sent readings in it."
    engine = "mysql"
    sql    = <<-SQL
      SELECT COUNT(*) AS readings, AVG(temperature) AS avg_temperature, MAX(temperature) AS max_temperature,
             (SELECT COUNT(DISTINCT device_id) FROM readings
               WHERE measured_at >= ${sql_string(step.wait_for_window.window_start)}
                 AND measured_at < ${sql_string(step.wait_for_window.window_start)} + INTERVAL 10 SECOND) AS devices
      FROM readings
      WHERE device_id = ${step.reading.device_id}
        AND measured_at >= ${sql_string(step.wait_for_window.window_start)}
        AND measured_at < ${sql_string(step.wait_for_window.window_start)} + INTERVAL 10 SECOND
    SQL
    capture = {
      window = result.rows[0]
    }
  }

  step "window_devices" {
    title  = "Every device's row of that window in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT count() AS devices FROM telemetry.device_window FINAL WHERE window_start = toDateTime64(${sql_string(step.wait_for_window.window_start)}, 3)"

    # The served row is the whole window, ten seconds long, as MySQL's
    # readings make it, and every device that sent one has its row.
    expect {
      condition = step.wait_for_window.row.readings == step.source_window.window.readings && abs(coalesce(step.wait_for_window.row.avg_temperature, -1000) - step.source_window.window.avg_temperature) < 0.0001 && step.wait_for_window.row.max_temperature == step.source_window.window.max_temperature && step.wait_for_window.row.span_ms == 10000 && result.rows[0].devices == step.source_window.window.devices
      message   = "Measured: the window ClickHouse served is MySQL's (its count, average and maximum of the device's readings, ten seconds long), and each device that sent readings in it has its row."
      detects   = [control.windows_early]
    }
  }

  # Kafka, not ClickHouse: ClickHouse folds the versions of one key that
  # arrive in one insert and merges the rest in the background, so a
  # window written twice can still show one row; the topic keeps every
  # message.
  step "versions" {
    title = "Every message of that window's key in device-window"
    text  = "The job's output as it wrote it: one message per version of the key {device_id, window_start}. A window that fires once has one."
    kafka = {
      topic = "device-window"
      key   = jsonencode({ device_id = step.reading.device_id, window_start = step.wait_for_window.window_start })
    }

    expect {
      condition = length([for m in result.messages : m if !m.tombstone]) == 1 && jsondecode([for m in result.messages : m.value if !m.tombstone][0]).readings == step.wait_for_window.readings
      message   = "A closed window is written once and never changes: its key has one message, with the count ClickHouse served."
      detects   = [control.windows_early]
    }
  }

  # One wait, polling ClickHouse every second.
  measure "window_served_after" {
    title      = "The newest reading's ten-second window is served by ClickHouse after"
    value      = step.wait_for_window.took_ms / 1000
    unit       = "s"
    samples    = 1
    resolution = "1s"
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
      since = result.rows[0].last_hot_at
    }
  }

  step "grows" {
    title  = "Refresh until the count of that site changes"
    text   = "Every hot reading updates the site's row: Flink retracts the old count and emits the new one, and the upsert topic keeps the newest under the site's key."
    engine = "clickhouse"
    sql    = "SELECT site, hot_readings, hottest, last_hot_at, (SELECT count() FROM telemetry.site_heat FINAL WHERE last_hot_at > toDateTime64(${sql_string(step.before.since)}, 3)) AS sites FROM telemetry.site_heat FINAL WHERE site = ${sql_string(step.before.site)}"
  }

  step "wait_for_change" {
    title = "Wait for the count to change"
    wait = {
      rerun    = step.grows
      until    = length(result.rows) > 0 && result.rows[0].hot_readings > step.before.count
      interval = "2s"
      timeout  = "3m"
    }
    capture = {
      count = result.rows[0].hot_readings
      row   = result.rows[0]
    }
  }

  # The count as MySQL's readings make it up to the newest hot reading
  # the job counted, and how many sites had a hot reading since the first
  # read (up to 5 s before that newest one, which the job has written by
  # then): each of them has a row updated since.
  step "source_count" {
    title  = "The same count computed from MySQL's readings"
    text   = "The site's hot readings up to the last one ClickHouse's row counted, the hottest and the newest of them, and how many sites had hot readings since the first read."
    engine = "mysql"
    sql    = <<-SQL
      SELECT COUNT(*) AS hot_readings, MAX(temperature) AS hottest, MAX(measured_at) AS last_hot_at,
             (SELECT COUNT(DISTINCT site) FROM readings
               WHERE temperature >= ${var.hot}
                 AND measured_at > ${sql_string(step.before.since)}
                 AND measured_at <= ${sql_string(coalesce(step.wait_for_change.row.last_hot_at, "1970-01-01 00:00:00"))} - INTERVAL 5 SECOND) AS sites
      FROM readings
      WHERE site = ${sql_string(step.before.site)} AND temperature >= ${var.hot}
        AND measured_at <= ${sql_string(coalesce(step.wait_for_change.row.last_hot_at, "1970-01-01 00:00:00"))}
    SQL
    capture = {
      row = result.rows[0]
    }
  }

  step "key_versions" {
    title = "Every message of the site's key in site-heat"
    text  = "Each change of the count is a new message under the same key: the upsert topic is the aggregate's changelog."
    kafka = {
      topic = "site-heat"
      key   = jsonencode({ site = step.before.site })
      max   = 500
    }

    expect {
      condition = length([for m in result.messages : m if !m.tombstone]) >= 2
      message   = "Checked: the site's key has several versions in the topic, one per change of its count."
      sanity    = "The key's history includes what the job wrote before any control: it shows the changelog's shape, which the next expectation ties to this run."
    }

    # The versions written since the first read are each one change:
    # the same count twice is a job that writes its output twice. The
    # served row is MySQL's, and every site with a hot reading since has
    # a row updated since.
    expect {
      condition = max([for m in result.messages : jsondecode(m.value).hot_readings if !m.tombstone]...) >= step.wait_for_change.count && step.wait_for_change.count > step.before.count && length(distinct([for m in result.messages : m.value if !m.tombstone && jsondecode(m.value).hot_readings > step.before.count])) == length([for m in result.messages : m if !m.tombstone && jsondecode(m.value).hot_readings > step.before.count]) && step.wait_for_change.row.hot_readings == step.source_count.row.hot_readings && step.wait_for_change.row.hottest == step.source_count.row.hottest && step.wait_for_change.row.last_hot_at == step.source_count.row.last_hot_at && step.wait_for_change.row.sites >= step.source_count.row.sites
      message   = "Measured: the count grew past the one read first, and the topic holds the larger count ClickHouse served, each new count once: the key was updated in place, not finalised. The served row is MySQL's (the count, hottest and newest hot reading up to it), and every site with a hot reading since the first read has its row updated since."
      detects   = [control.streams_cancelled]
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

experiment "late_receipts" {
  number   = 4
  title    = "Join two streams within a time bound"
  question = "Which receipts meet their reading in an event-time interval join, and when?"
  intro    = "Take the newest receipt in MySQL of a reading measured since the experiment began, wait until its delivery appears in ClickHouse, then count how many recent readings were never delivered."
  record   = ["the receipt followed", "its delivery and delay", "how long the delivery took to appear", "readings without a delivery"]

  step "now" {
    title  = "The time now, as MySQL has it"
    engine = "mysql"
    sql    = "SELECT UTC_TIMESTAMP(3) AS now"
    capture = {
      now = result.rows[0].now
    }
  }

  # A reading measured from now on meets the running job's join (which
  # reads only what was written after it started), and one received at
  # least a second after has a delay the join computes, not a zero.
  step "receipts" {
    title  = "Receipts of readings measured since, received within ten seconds"
    engine = "mysql"
    sql    = <<-SQL
      SELECT c.receipt_id, c.reading_id, r.device_id, r.measured_at, c.received_at,
             TIMESTAMPDIFF(SECOND, r.measured_at, c.received_at) AS delay_s
      FROM receipts AS c
      JOIN readings AS r ON r.reading_id = c.reading_id
      WHERE r.measured_at > ${sql_string(step.now.now)}
        AND c.received_at >= r.measured_at + INTERVAL 1 SECOND
        AND c.received_at <= r.measured_at + INTERVAL 10 SECOND
      ORDER BY c.receipt_id DESC
      LIMIT 1
    SQL
  }

  step "receipt" {
    title = "Wait for such a receipt"
    wait = {
      rerun    = step.receipts
      until    = length(result.rows) > 0
      interval = "2s"
      timeout  = "1m"
    }
    capture = {
      reading_id = result.rows[0].reading_id
      row        = result.rows[0]
    }
  }

  step "delivery" {
    title  = "Its delivery in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT reading_id, device_id, measured_at, received_at, delay_s FROM telemetry.deliveries FINAL WHERE reading_id = ${step.receipt.reading_id}"
  }

  step "wait_for_delivery" {
    title = "Refresh until the delivery appears"
    text  = "An interval join emits a match as soon as both rows are there; the rest of the time is the binlog, Kafka and ClickHouse's Kafka engine."
    wait = {
      rerun    = step.delivery
      until    = length(result.rows) > 0
      interval = "1s"
      timeout  = "2m"
    }

    expect {
      condition = length(result.rows) == 1 && result.rows[0].delay_s <= 10
      message   = "The receipt, which came within ten seconds, met its reading once."
      detects   = [control.delay_in_ms]
    }
    capture = {
      row = result.rows[0]
    }
  }

  # Every reading the running join could deliver, counted: measured 30 s
  # after it was submitted or later (it reads only what was written after
  # its sources start, some seconds after the submission: with 2 s a run
  # missed 13 of 1204) and at least 12 s ago (every timely receipt is in
  # by then), with a receipt within ten seconds.
  step "join_started" {
    title = "When the running join started"
    flink = {
      job  = job.deliveries
      show = ["state"]
    }
    capture = {
      at = result.start_time
    }
  }

  step "deliverable" {
    title  = "Readings since then whose receipt came within ten seconds, in MySQL"
    engine = "mysql"
    sql    = <<-SQL
      SELECT COUNT(*) AS readings, UTC_TIMESTAMP(3) - INTERVAL 12 SECOND AS until
      FROM readings AS r
      JOIN receipts AS c ON c.reading_id = r.reading_id
      WHERE r.measured_at > ${sql_string(step.join_started.at)} + INTERVAL 30 SECOND
        AND r.measured_at <= UTC_TIMESTAMP(3) - INTERVAL 12 SECOND
        AND c.received_at BETWEEN r.measured_at AND r.measured_at + INTERVAL 10 SECOND
    SQL
    capture = {
      readings = result.rows[0].readings
      until    = result.rows[0].until
    }
  }

  step "delivered" {
    title  = "The same readings' deliveries in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT count() AS deliveries FROM telemetry.deliveries FINAL WHERE measured_at > toDateTime64(${sql_string(step.join_started.at)}, 3) + INTERVAL 30 SECOND AND measured_at <= toDateTime64(${sql_string(step.deliverable.until)}, 3)"
  }

  step "all_delivered" {
    title = "Refresh until ClickHouse has as many"
    wait = {
      rerun    = step.delivered
      until    = result.rows[0].deliveries >= step.deliverable.readings
      interval = "1s"
      timeout  = "20s"
    }
    capture = {
      deliveries = result.rows[0].deliveries
    }
  }

  # The topic, not ClickHouse: ClickHouse folds the copies of one key
  # that arrive in one insert, so a match written twice shows once there.
  step "delivery_messages" {
    title = "The delivery's messages in the deliveries topic"
    text  = "The join's output as it wrote it, under the reading's key: an interval join emits each match once."
    kafka = {
      topic = "deliveries"
      key   = jsonencode({ reading_id = step.receipt.reading_id })
    }

    expect {
      condition = length([for m in result.messages : m if !m.tombstone]) == 1 && step.all_delivered.deliveries == step.deliverable.readings && step.wait_for_delivery.row.device_id == step.receipt.row.device_id && step.wait_for_delivery.row.measured_at == step.receipt.row.measured_at && step.wait_for_delivery.row.received_at == step.receipt.row.received_at && step.wait_for_delivery.row.delay_s == step.receipt.row.delay_s
      message   = "Measured: the match was written once, every reading since the join started whose receipt came within ten seconds has its delivery and no other has one, and the delivery is MySQL's reading and receipt (device, measurement and receipt times, and the delay between them in whole seconds)."
      detects   = [control.delay_in_ms]
    }
  }

  step "undelivered" {
    title  = "Older readings without a delivery"
    text   = "Readings between the first and the last delivered one, measured more than a minute ago (every receipt that will come has come), that have no delivery. The job reads only what was written after it started, so the first delivered reading is about when it started."
    engine = "clickhouse"
    sql    = "SELECT count() AS deliveries, min(reading_id) AS first_reading, max(reading_id) AS last_reading, max(reading_id) - min(reading_id) + 1 - count() AS undelivered FROM telemetry.deliveries FINAL WHERE measured_at < now64(3) - INTERVAL 1 MINUTE"
    capture = {
      first_reading = result.rows[0].first_reading
      last_reading  = result.rows[0].last_reading
      undelivered   = result.rows[0].undelivered
    }

    expect {
      condition = length(result.rows) == 1 && result.rows[0].deliveries > 0 && result.rows[0].undelivered > 0
      message   = "Some readings of the range have no delivery."
      sanity    = "The range's past deliveries stay whatever the job does now: it shows the join drops some readings, which the next expectation accounts for."
    }
  }

  step "untimely" {
    title  = "How many of them MySQL says cannot be delivered"
    text   = "The same readings in MySQL: those whose receipt was lost, and those whose receipt came after the ten seconds. The join cannot deliver these; any further reading it missed was dropped by the watermark."
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS readings, COUNT(*) - COUNT(c.reading_id) AS lost, COALESCE(SUM(c.received_at > r.measured_at + INTERVAL 10 SECOND), 0) AS late FROM readings AS r LEFT JOIN receipts AS c ON c.reading_id = r.reading_id WHERE r.reading_id BETWEEN ${step.undelivered.first_reading} AND ${step.undelivered.last_reading}"

    expect {
      condition = step.undelivered.undelivered >= result.rows[0].lost + result.rows[0].late
      message   = "The join delivered no reading whose receipt was lost or late: its misses are at least those."
      sanity    = "It compares deliveries already made with MySQL; cancelling the join now changes neither."
    }
  }

  expected       = "The newest timely receipt appears as a delivery within seconds, with its delay. A few percent of the readings have no timely receipt and are never delivered; MySQL's count of them and the join's misses agree, or the join missed a few more."
  interpretation = "An interval join keeps each side only as long as the bound and the watermark require: a receipt outside the bound is not late data to be corrected, it is outside the question the join asks. The job reads both tables from the end of the binlog: started with their snapshots, the two sources reach the join out of event-time order and the watermark drops most older rows."
}

experiment "bounded_summary" {
  number   = 5
  title    = "Summarise with bounded jobs, without a lake"
  question = "What does a batch job read from MySQL and from Kafka, and how does it relate to the live tables?"
  intro    = "Count one device's readings in MySQL, run the bounded jobs, read their summaries in ClickHouse, and count again."
  record   = ["the device's readings before", "the batch result", "the summary", "the delivery summary", "the readings after"]
  needs    = [job.device_summary, job.delivery_summary]

  step "before" {
    title  = "One device's readings in MySQL now"
    engine = "mysql"
    sql    = "SELECT device_id, COUNT(*) AS readings FROM readings WHERE device_id = 1 GROUP BY device_id"
    capture = {
      readings = result.rows[0].readings
    }
  }

  step "batch" {
    title = "Run the bounded jobs"
    text  = "device_summary reads MySQL through JDBC, a snapshot of the table when it runs; delivery_summary reads the deliveries topic from its first offset to the latest when it starts. Each waits until its result reaches ClickHouse."
    lab   = "batch"

    expect {
      condition = result.failed == 0
      message   = "Both bounded jobs finished."
      sanity    = "The bounded jobs read MySQL and the topic's past, which the streaming jobs do not change."
    }
  }

  step "summary" {
    title  = "The device's summary in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT device_id, readings, avg_temperature, min_temperature, max_temperature, last_measured_at FROM telemetry.device_summary FINAL WHERE device_id = 1"
    capture = {
      readings = result.rows[0].readings
    }

    expect {
      condition = length(result.rows) == 1 && result.rows[0].readings >= step.before.readings
      message   = "The snapshot was taken after the first count: it holds at least as many readings."
      sanity    = "A JDBC snapshot of MySQL: no streaming job is involved."
    }
  }

  step "deliveries" {
    title  = "The device's delivery summary"
    engine = "clickhouse"
    sql    = "SELECT device_id, delivered, avg_delay_s, max_delay_s, last_received_at FROM telemetry.delivery_summary FINAL WHERE device_id = 1"

    expect {
      condition = length(result.rows) == 1 && result.rows[0].delivered > 0 && result.rows[0].max_delay_s <= 10
      message   = "The bounded read of the topic found the device's deliveries, none later than the join's bound."
      sanity    = "It reads the deliveries topic's past, which stays when the join is cancelled."
    }
  }

  step "after" {
    title  = "The device's readings in MySQL again"
    engine = "mysql"
    sql    = "SELECT device_id, COUNT(*) AS readings FROM readings WHERE device_id = 1 GROUP BY device_id"

    expect {
      condition = result.rows[0].readings >= step.summary.readings
      message   = "MySQL has moved on since the snapshot: the summary is a value at the time the job ran."
      sanity    = "It reads MySQL only."
    }
  }

  expected       = "The summary counts at least the readings of the first count and at most those of the last; the delivery summary stops at the topic's offset when the job started."
  interpretation = "A bounded job over a live source reads a snapshot: it is exact for its moment and stale right after. Without a lake there is no way to read the same snapshot twice; rerun the job for a new one."
}
