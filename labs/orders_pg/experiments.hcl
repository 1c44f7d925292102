# Negative controls, each aimed at the claims it names: the join
# cancelled (the job's state, the lake's audit), mutants that keep rows
# flowing but wrong in one named way, and a slowed link that keeps them
# flowing but late.
control "join_cancelled" {
  title  = "The streaming join is cancelled"
  text   = "Nothing new reaches Kafka or ClickHouse, while PostgreSQL keeps taking orders and payments."
  cancel = [job.order_wide]
  # Experiment 04 bounds how many orders the lake lacks by 45 s of them:
  # the lake must have been left behind longer than that when it reads.
  # (Without the wait a run saw 221 <= 225 there: blind, by 4 orders.)
  settle = "30s"
}

# A mutant aimed at the payment status: every row still arrives, on time,
# and says PENDING, so only a check of the status itself can see it.
control "status_stale" {
  title = "The join never takes the payment's status"
  text  = "A mutant of order_wide: every order is served, on time, as PENDING, whatever its payment says."
  job   = job.order_wide
  replace = {
    "COALESCE(p.payment_status, 'PENDING') AS payment_status" = "'PENDING' AS payment_status"
  }
}

# A mutant aimed at the rest of the row: the status is right, every row
# arrives on time, and the version ClickHouse deduplicates by is the
# order's creation, not its latest change.
control "version_stuck" {
  title = "The join's version never moves past the order's creation"
  text  = "A mutant of order_wide: updated_at is the order's created_at, so the paid version has the pending one's version; the status is right."
  job   = job.order_wide
  replace = {
    "GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)) AS updated_at" = "o.created_at AS updated_at"
  }
}

# A slowed link: nothing stopped, nothing lost. Every answer Kafka sends
# ClickHouse is held 25 s; its Kafka engine fetches one answer at a time,
# so a message written just after a fetch waits for the next one too (up
# to 50 s). The serving layer lags past the bound and still catches up
# within the control's cap (35 s plus the 25 s added).
control "serving_late" {
  title   = "Kafka's answers reach ClickHouse 25 s late"
  text    = "Every byte Kafka sends ClickHouse's Kafka engine tables is held 25 s by the link proxy: the join runs and writes Kafka on time, and ClickHouse serves each order 25 to 50 s later than it would."
  latency = { from = "kafka", to = "clickhouse", add = "25s" }
}

experiment "baseline" {
  number   = 1
  title    = "Establish a baseline"
  question = "Do orders flow from PostgreSQL through the join into ClickHouse?"
  intro    = "Run the smoke checks, then count the source rows in PostgreSQL and look at the newest wide rows in ClickHouse."
  record   = ["the smoke result", "the source counts", "the newest wide rows"]

  step "smoke" {
    title = "Run the smoke checks"
    lab   = "smoke"
  }

  step "counts" {
    title = "Source row counts in PostgreSQL"
    query = preset.source_counts
  }

  step "source_total" {
    title  = "How many orders PostgreSQL holds now, and the newest"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS n, MAX(order_id) AS max_id FROM orders"
    capture = {
      n      = result.rows[0].n
      max_id = result.rows[0].max_id
    }
  }

  step "wide" {
    title = "The newest wide rows in ClickHouse"
    query = preset.latest_wide_orders
  }

  step "serving_total" {
    title  = "The same orders in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT count() AS n FROM analytics.dwd_order_wide FINAL WHERE order_id <= ${step.source_total.max_id}"
  }

  step "caught_up" {
    title = "Refresh ClickHouse until it serves every one of those orders"
    text  = "The write-ahead log, the Flink join, Kafka and ClickHouse's Kafka engine take seconds: the last sample's time is the serving layer's lag behind PostgreSQL, as seen from here."
    wait = {
      rerun    = step.serving_total
      until    = result.rows[0].n >= step.source_total.n
      interval = "1s"
      timeout  = "90s"
    }
    sample = {
      orders_served = result.rows[0].n
    }
    capture = {
      lag_ms = samples[length(samples) - 1].ms
    }

    expect {
      condition = result.rows[0].n == step.source_total.n && samples[length(samples) - 1].ms <= 30000
      message   = "Measured: within 30 s ClickHouse serves exactly the orders PostgreSQL held (none missing, none extra after deduplication)."
      detects   = [control.serving_late]
    }
  }

  step "job" {
    title = "The streaming job"
    flink = {
      job  = job.order_wide
      show = ["state", "vertices", "checkpoints", "restarts"]
    }

    expect {
      condition = result.state == "RUNNING" && length([for v in result.vertices : v if v.status != "RUNNING"]) == 0 && result.restarts_in_experiment == 0
      message   = "Measured: the streaming job and every one of its vertices run, and it has not restarted."
      detects   = [control.join_cancelled]
    }
  }

  # One wait, polling ClickHouse every second.
  measure "serving_lag" {
    title      = "ClickHouse serves every order PostgreSQL held, after"
    value      = step.caught_up.lag_ms / 1000
    unit       = "s"
    samples    = 1
    resolution = "1s"
  }

  expected       = "Smoke passes; ClickHouse serves every order PostgreSQL held within seconds, and the streaming job runs without restarts."
  interpretation = "The reference point: the same pipeline as the seed lab's, read from PostgreSQL's write-ahead log instead of MySQL's binlog."
}

experiment "trace_order" {
  number   = 2
  title    = "Follow one order from PostgreSQL to ClickHouse"
  question = "Is the order ClickHouse serves the one PostgreSQL holds?"
  intro    = "Choose an order whose payment came well after it, and read it in PostgreSQL, its Kafka key and ClickHouse."
  record   = ["the selected order ID", "its rows in PostgreSQL", "its versions in ClickHouse"]

  step "now" {
    title  = "The time now, as PostgreSQL has it"
    engine = "postgres"
    sql    = "SELECT LOCALTIMESTAMP(3)::text AS now"
    capture = {
      now = result.rows[0].now
    }
  }

  # An order created from now on, paid more than 10 s later, had its
  # PENDING version served before its payment: several versions. (The
  # times compare as text, ISO order.)
  step "candidates" {
    title  = "Orders paid well after they were created"
    engine = "postgres"
    sql    = <<-SQL
      SELECT o.order_id, o.created_at, p.payment_status, p.updated_at AS paid_at
      FROM orders o
      JOIN payments p ON p.order_id = o.order_id
      WHERE o.created_at::text > ${sql_string(step.now.now)}
        AND p.updated_at > o.created_at + INTERVAL '10 seconds'
        AND p.updated_at < LOCALTIMESTAMP - INTERVAL '5 seconds'
      ORDER BY p.updated_at DESC
      LIMIT 1
    SQL
  }

  step "pick" {
    title = "Choose the newest such order"
    text  = "Payments come after a random delay: the query is re-run until an order created since the experiment started qualifies (usually within a minute)."
    wait = {
      rerun    = step.candidates
      until    = length(result.rows) > 0
      interval = "5s"
      timeout  = "3m"
    }
    capture = {
      order_id       = result.rows[0].order_id
      payment_status = result.rows[0].payment_status
    }
  }

  # The wide row as PostgreSQL's own rows define it, read once the
  # payment is in (the pick waits for that): what ClickHouse must serve.
  step "source" {
    title  = "The same order in PostgreSQL"
    text   = "The source keeps one row per order and one per payment; the wide row is the order's columns, the payment's status and time, and the later of both changes."
    engine = "postgres"
    sql    = <<-SQL
      SELECT o.order_id, o.customer_id, o.category, o.order_amount, o.order_status,
             p.payment_id, p.payment_status, p.paid_at, o.created_at,
             GREATEST(o.updated_at, p.updated_at) AS updated_at
      FROM orders o
      LEFT JOIN payments p ON o.order_id = p.order_id
      WHERE o.order_id = ${step.pick.order_id}
    SQL
    capture = {
      row = result.rows[0]
    }
  }

  step "serving" {
    title  = "The order in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT order_id, customer_id, category, order_amount, order_status, payment_status, paid_at, created_at, updated_at FROM analytics.dwd_order_wide FINAL WHERE order_id = ${step.pick.order_id}"
  }

  step "served" {
    title = "Refresh until ClickHouse serves the order with its payment"
    text  = "The payment came a few seconds ago; the last sample's time is how long it still took to reach ClickHouse from here."
    wait = {
      rerun    = step.serving
      until    = length(result.rows) > 0 && result.rows[0].payment_status != "PENDING"
      interval = "1s"
      timeout  = "1m"
    }

    expect {
      condition = length(result.rows) == 1 && result.rows[0].payment_status == step.pick.payment_status && samples[length(samples) - 1].ms <= 30000
      message   = "Measured: within 30 s ClickHouse serves the order once, with the payment status PostgreSQL has."
      detects   = [control.status_stale]
    }

    # Every other column is PostgreSQL's too: a column no expectation
    # reads could hold anything.
    expect {
      condition = result.rows[0].customer_id == step.source.row.customer_id && result.rows[0].category == step.source.row.category && result.rows[0].order_amount == step.source.row.order_amount && result.rows[0].order_status == step.source.row.order_status && result.rows[0].paid_at == step.source.row.paid_at && result.rows[0].created_at == step.source.row.created_at && result.rows[0].updated_at == step.source.row.updated_at
      message   = "Measured: the rest of the wide row is PostgreSQL's (customer, category, amount, order status, payment time, creation), and its version, updated_at, is the later of the order's and the payment's changes."
      detects   = [control.version_stuck]
    }
  }

  step "kafka" {
    title = "Every message of the order's key in dwd-order-wide"
    text  = "Several versions of the same key, with a tombstone between them where the left join retracts its padded row."
    kafka = {
      topic = "dwd-order-wide"
      key   = jsonencode({ order_id = step.pick.order_id })
    }

    # Each change of the order is one message: the same version twice
    # is a job that writes its output twice.
    expect {
      condition = length(distinct([for m in result.messages : jsondecode(m.value).payment_status if !m.tombstone])) >= 2 && length(distinct([for m in result.messages : m.value if !m.tombstone])) == length([for m in result.messages : m if !m.tombstone])
      message   = "Measured: the key has several versions, with different payment statuses (PENDING, then the payment's), and none of them twice."
      detects   = [control.status_stale]
    }
  }

  step "unpaid" {
    title = "Orders still waiting for their payment"
    query = preset.unpaid_orders
  }

  expected       = "The same order ID connects the PostgreSQL rows, the Kafka key and the ClickHouse row; the key carries several versions of the order."
  interpretation = "This case follows one chosen record along its path; it does not show that every record made the trip."
}

experiment "bounded_summary" {
  number   = 3
  title    = "Summarise the orders with a bounded job"
  question = "What does a batch job read from PostgreSQL through JDBC while the producer keeps writing?"
  intro    = "Count the orders in PostgreSQL, run the bounded job, read its summary in ClickHouse, and count again."
  record   = ["the orders before", "the batch result", "the summary", "the orders after"]
  needs    = [job.category_summary]

  step "before" {
    title  = "Orders in PostgreSQL now"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS orders FROM orders"
    capture = {
      orders = result.rows[0].orders
    }
  }

  step "batch" {
    title = "Run the bounded job"
    text  = "category_summary reads the orders table through Flink's JDBC connector, a snapshot of the table when it runs, not the replication slot the streaming job reads."
    lab   = "batch"

    expect {
      condition = result.failed == 0
      message   = "The bounded job finished."
      sanity    = "A JDBC read of PostgreSQL: the streaming join is not involved."
    }
  }

  step "summary" {
    title  = "The summary in ClickHouse"
    engine = "clickhouse"
    sql    = "SELECT sum(orders) AS orders, sum(amount) AS amount, count() AS categories, max(last_created_at) AS last_created_at FROM analytics.category_summary FINAL"
  }

  # Every category's row travels through Kafka and ClickHouse's Kafka engine
  # on its own: wait on the layer the step reads until the whole snapshot
  # is there.
  step "wait_for_summary" {
    title = "Refresh the summary until the snapshot's rows are all in"
    wait = {
      rerun    = step.summary
      until    = result.rows[0].orders >= step.before.orders
      interval = "1s"
      timeout  = "1m"
    }
    capture = {
      orders = result.rows[0].orders
    }

    expect {
      condition = result.rows[0].orders >= step.before.orders && result.rows[0].categories > 0
      message   = "The snapshot was taken after the first count: it holds at least as many orders."
      sanity    = "A JDBC snapshot of PostgreSQL: the streaming join is not involved."
    }
  }

  step "after" {
    title  = "Orders in PostgreSQL again"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS orders FROM orders"

    expect {
      condition = result.rows[0].orders >= step.wait_for_summary.orders
      message   = "PostgreSQL has moved on since the snapshot: the summary is a value at the time the job ran."
      sanity    = "It reads PostgreSQL only."
    }
  }

  expected       = "The summary counts at least the orders of the first count and at most those of the last, split by category."
  interpretation = "A bounded job over a live source reads a snapshot: exact for its moment and stale right after. The streaming join reads the same table's changes from the write-ahead log and never ends; rerun the batch job for a new snapshot."
}

experiment "paimon_commits" {
  number   = 4
  title    = "Read the Paimon table Flink writes"
  question = "When does an order PostgreSQL holds become readable in the Paimon table the streaming job writes?"
  intro    = "Count the orders in PostgreSQL, let the streaming job complete two more checkpoints (each commits a Paimon snapshot), run the bounded jobs, and read what the latest snapshot held: how many orders, against PostgreSQL at the count and when the snapshot was read."
  record   = ["the orders in PostgreSQL at the count", "the checkpoints before and how long two more took", "the audit of the Paimon snapshot", "the orders PostgreSQL held when the snapshot was read", "how many of them the snapshot lacked"]
  needs    = [job.order_wide, job.paimon_audit]

  step "before" {
    title  = "How many orders PostgreSQL holds now"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS n, MAX(order_id) AS max_id FROM orders"
    capture = {
      n      = result.rows[0].n
      max_id = result.rows[0].max_id
    }
  }

  step "job" {
    title = "The streaming job's checkpoints"
    flink = {
      job  = job.order_wide
      show = ["state", "checkpoints"]
    }
    capture = {
      checkpoints = result.checkpoints.completed
    }
  }

  # The Paimon sink commits what it wrote when a checkpoint completes. The
  # first checkpoint after the count may have begun before it; the second
  # began after it, so its snapshot holds every order counted.
  step "committed" {
    title = "Wait until the job has completed two more checkpoints"
    text  = "Each completed checkpoint commits a Paimon snapshot; the last sample's time is how long two commits took from here."
    wait = {
      rerun    = step.job
      until    = result.checkpoints.completed >= step.job.checkpoints + 2
      interval = "1s"
      timeout  = "1m"
    }
    sample = {
      checkpoints = result.checkpoints.completed
    }
    capture = {
      took_ms = samples[length(samples) - 1].ms
    }
  }

  step "batch" {
    title = "Run the bounded jobs"
    text  = "paimon_audit reads the latest snapshot of the Paimon table; category_summary runs too."
    lab   = "batch"

    expect {
      condition = result.failed == 0
      message   = "The bounded jobs finished, and ClickHouse serves the new audit row."
      sanity    = "A bounded read of the lake: it runs whether or not the streaming job still writes."
    }
  }

  # The batch step waits until ClickHouse serves the new audit row (its
  # newest audited_at changed), so this reads that row.
  step "audit" {
    title  = "The newest audit of the Paimon table"
    engine = "clickhouse"
    sql    = "SELECT audited_at, paimon_orders, distinct_orders, paid_orders, max_order_id FROM analytics.paimon_audit FINAL ORDER BY audited_at DESC LIMIT 1"
    capture = {
      paimon_orders = result.rows[0].paimon_orders
      audited_at    = result.rows[0].audited_at
    }

    expect {
      condition = result.rows[0].paimon_orders >= step.before.n && result.rows[0].max_order_id >= step.before.max_id
      message   = "Measured: two checkpoints after the count, the Paimon snapshot holds at least every order PostgreSQL held at the count, the newest included."
      detects   = [control.join_cancelled]
    }

    expect {
      condition = result.rows[0].paimon_orders == result.rows[0].distinct_orders
      message   = "Checked: one row per order in Paimon: its primary key merged each order's versions (pending, then paid)."
      sanity    = "The table's primary key does this whatever the pipeline does; a table without one would keep every version."
    }
  }

  # The audit job stamped its read with Flink's clock and the producer its
  # orders with the database's, both UTC: the orders PostgreSQL held when
  # the snapshot was read, against those the snapshot held, is how far the
  # lake trailed the source at that moment.
  step "at_read" {
    title  = "How many orders PostgreSQL held when the snapshot was read"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS n FROM orders WHERE created_at <= ${sql_string(step.audit.audited_at)}::timestamp"
    capture = {
      n = result.rows[0].n
    }

    expect {
      condition = result.rows[0].n >= step.audit.paimon_orders
      message   = "Checked: PostgreSQL held at least the orders of the snapshot when it was read: the lake trails the source, never leads it."
      sanity    = "It compares with the source; a lake ahead of it would need orders that were never written, or clocks hours apart."
    }

    expect {
      condition = result.rows[0].n - step.audit.paimon_orders <= var.order_rate * 45
      message   = "Measured: the snapshot lacked at most 45 s of orders (${var.order_rate} a second) when it was read: a checkpoint interval, the pipeline's own lag and a margin."
      detects   = [control.join_cancelled]
    }
  }

  # One wait, polling Flink every second.
  measure "paimon_commit_wait" {
    title      = "Two more checkpoints (two Paimon commits) completed after"
    value      = step.committed.took_ms / 1000
    unit       = "s"
    samples    = 1
    resolution = "1s"
  }

  measure "paimon_behind" {
    title = "Orders PostgreSQL held that the Paimon snapshot lacked, when the snapshot was read"
    value = step.at_read.n - step.audit.paimon_orders
    unit  = "orders"
  }

  expected       = "Two checkpoints after the count, the latest Paimon snapshot holds every order PostgreSQL held at the count, one row per order; when it is read it lacks the orders written since its checkpoint: seconds of orders, not more."
  interpretation = "A Paimon table written by Flink is as fresh as the last completed checkpoint: rows become readable when a checkpoint commits them, not when Flink writes them. The checkpoint interval (10 s here) bounds how far a reader of the lake trails the source, besides the bounded job's own run."
}
