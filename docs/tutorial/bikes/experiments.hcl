# Negative controls: what the measuring expectations must notice.
# `labgen run --controls` applies each, runs every experiment that names
# it again, and undoes it. Cancelling the job empties every result; a
# mutant of the job's SQL keeps rows flowing, wrong in one named way, so
# only an expectation about that very value can see it.
control "trips_cancelled" {
  title  = "The trips job is cancelled"
  text   = "Nothing new reaches Kafka or ClickHouse, while the docks keep writing rides and arrivals into MySQL."
  cancel = [job.trips]
}

control "duration_in_minutes" {
  title = "The job counts durations in minutes"
  text  = "A mutant of trips: duration_s holds minutes; every trip still arrives, on time, RETURNED, with its end station."
  job   = job.trips
  replace = {
    "TIMESTAMPDIFF(SECOND, r.started_at, a.arrived_at)" = "TIMESTAMPDIFF(MINUTE, r.started_at, a.arrived_at)"
  }
}

control "status_stuck" {
  title = "A trip never leaves RIDING"
  text  = "A mutant of trips: the status is always RIDING, though the end station and duration arrive."
  job   = job.trips
  replace = {
    "CASE WHEN a.ride_id IS NULL THEN 'RIDING' ELSE 'RETURNED' END" = "'RIDING'"
  }
}

control "version_stuck" {
  title = "A trip's version stays its start"
  text  = "A mutant of trips: updated_at is the ride's start in every version, so the RETURNED version does not outrank the RIDING one by its version, only by arriving later."
  job   = job.trips
  replace = {
    "GREATEST(r.started_at, COALESCE(a.arrived_at, r.started_at)) AS updated_at" = "r.started_at AS updated_at"
  }
}

experiment "every_ride_arrives" {
  number   = 1
  title    = "Every ride reaches ClickHouse"
  question = "Does ClickHouse serve every ride MySQL holds, and how far behind is it?"
  intro    = "Count the rides in MySQL, then refresh ClickHouse until it serves as many of them."
  record   = ["the rides MySQL held", "how long ClickHouse took to serve them", "the state of the job"]

  step "job" {
    title = "The streaming job"
    flink = {
      job  = job.trips
      show = ["state", "checkpoints", "restarts"]
    }

    expect {
      condition = result.state == "RUNNING" && result.restarts_in_experiment == 0
      message   = "The trips job runs and has not restarted."
      detects   = [control.trips_cancelled]
    }
  }

  step "source" {
    title  = "How many rides MySQL holds now, and the newest"
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n, MAX(ride_id) AS max_id FROM rides"
    capture = {
      n      = result.rows[0].n
      max_id = result.rows[0].max_id
    }
  }

  step "serving" {
    title  = "The same rides in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT count() AS n FROM dashboard.trips FINAL WHERE ride_id <= ${step.source.max_id}"
  }

  step "caught_up" {
    title = "Refresh ClickHouse until it serves every one of those rides"
    text  = "CDC, the Flink join, Kafka and ClickHouse's Kafka engine take seconds: the last sample's time is how far ClickHouse trails MySQL, as seen from here."
    wait = {
      rerun    = step.serving
      until    = result.rows[0].n >= step.source.n
      interval = "1s"
      timeout  = "25s"
    }
    sample = {
      served = result.rows[0].n
    }

    expect {
      condition = result.rows[0].n == step.source.n && samples[length(samples) - 1].ms <= 20000
      message   = "Measured: within 20 s ClickHouse serves exactly the rides MySQL held, one trip each."
      detects   = [control.trips_cancelled]
    }
  }

  step "stations" {
    title = "Trips per start station"
    query = preset.trips_by_station
  }

  expected       = "The job runs, and ClickHouse serves every ride MySQL held within seconds, one row per ride."
  interpretation = "The lag is measured from this machine and includes the query interval (1 s); it is an upper bound of the pipeline's delay, not the delay itself."
}

experiment "arrival_updates_trip" {
  number   = 2
  title    = "An arrival updates its trip"
  question = "What happens to a trip in Kafka and ClickHouse when its bike is docked?"
  intro    = "Pick a ride that started after the experiment began and was docked a few seconds later, then follow it into ClickHouse and into its Kafka key."
  record   = ["the ride followed", "its duration in MySQL and in ClickHouse", "the versions of its key in the topic"]

  step "now" {
    title  = "The time now, as MySQL has it"
    engine = "mysql"
    sql    = "SELECT UTC_TIMESTAMP(3) AS now"
    capture = {
      now = result.rows[0].now
    }
  }

  # A ride docked more than 5 s after it started had its RIDING version
  # written before the arrival came.
  step "candidates" {
    title  = "Rides started since, docked more than 5 s after their start"
    engine = "mysql"
    sql    = <<-SQL
      SELECT r.ride_id, r.bike_id, r.rider, r.station AS start_station,
             a.station AS end_station, r.started_at, a.arrived_at AS ended_at,
             TIMESTAMPDIFF(SECOND, r.started_at, a.arrived_at) AS duration_s
      FROM rides AS r
      JOIN arrivals AS a ON a.ride_id = r.ride_id
      WHERE r.started_at > ${sql_string(step.now.now)}
        AND a.arrived_at > r.started_at + INTERVAL 5 SECOND
      ORDER BY a.arrived_at DESC
      LIMIT 1
    SQL
  }

  step "pick" {
    title = "Wait for such a ride"
    wait = {
      rerun    = step.candidates
      until    = length(result.rows) > 0
      interval = "2s"
      timeout  = "1m"
    }
    capture = {
      ride_id       = result.rows[0].ride_id
      bike_id       = result.rows[0].bike_id
      rider         = result.rows[0].rider
      start_station = result.rows[0].start_station
      end_station   = result.rows[0].end_station
      started_at    = result.rows[0].started_at
      ended_at      = result.rows[0].ended_at
      duration_s    = result.rows[0].duration_s
    }
  }

  step "trip" {
    title  = "The trip in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT ride_id, status, bike_id, rider, start_station, end_station, started_at, ended_at, duration_s, updated_at FROM dashboard.trips FINAL WHERE ride_id = ${step.pick.ride_id}"
  }

  step "returned" {
    title = "Refresh until ClickHouse serves the trip as RETURNED"
    wait = {
      rerun    = step.trip
      until    = length(result.rows) > 0 && result.rows[0].status == "RETURNED"
      interval = "1s"
      timeout  = "25s"
    }

    expect {
      condition = length(result.rows) == 1 && result.rows[0].end_station == step.pick.end_station && result.rows[0].duration_s == step.pick.duration_s && samples[length(samples) - 1].ms <= 20000
      message   = "Measured: within 20 s ClickHouse serves the trip once, with the end station and duration MySQL has."
      detects   = [control.duration_in_minutes]
    }

    # Every other column is MySQL's too, and the version is the arrival's
    # time: a column the expectations never read could be anything.
    expect {
      condition = result.rows[0].bike_id == step.pick.bike_id && result.rows[0].rider == step.pick.rider && result.rows[0].start_station == step.pick.start_station && result.rows[0].started_at == step.pick.started_at && result.rows[0].ended_at == step.pick.ended_at && result.rows[0].updated_at == step.pick.ended_at
      message   = "Measured: the rest of the trip is MySQL's (bike, rider, start station, start and end times), and its version, updated_at, is the arrival's time."
      detects   = [control.version_stuck]
    }
  }

  step "versions" {
    title = "Every message of the ride's key in the trips topic"
    text  = "The LEFT JOIN wrote the ride as RIDING when it started, then retracted it (an empty message, a tombstone) and wrote it as RETURNED."
    kafka = {
      topic = "trips"
      key   = jsonencode({ ride_id = step.pick.ride_id })
    }

    expect {
      condition = length(distinct([for m in result.messages : jsondecode(m.value).status if !m.tombstone])) == 2 && length([for m in result.messages : m if !m.tombstone]) == 2
      message   = "Measured: the key has a RIDING and a RETURNED version in the topic, each once."
      detects   = [control.status_stuck]
    }
  }

  expected       = "The trip appears as RIDING while the bike is out and as RETURNED, with MySQL's end station and duration, seconds after it is docked; its Kafka key holds both versions."
  interpretation = "One ride is several messages: a topic's message count is not a ride count. ClickHouse keeps the newest version per key because the table's version column is updated_at."
}
