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

    expect {
      condition = length(result.rows) > 0
      message   = "The producer is writing orders into PostgreSQL."
    }
  }

  step "wide" {
    title = "The newest wide rows in ClickHouse"
    query = preset.latest_wide_orders
  }

  expected       = "Smoke passes; PostgreSQL holds orders and payments, and ClickHouse holds their wide rows."
  interpretation = "The reference point: the same pipeline as the seed lab's, read from PostgreSQL's write-ahead log instead of MySQL's binlog."
}

experiment "trace_order" {
  number   = 2
  title    = "Follow one order from PostgreSQL to ClickHouse"
  question = "Is the order ClickHouse serves the one PostgreSQL holds?"
  intro    = "Choose a recent wide row in ClickHouse and read the same order and its payment in PostgreSQL."
  record   = ["the selected order ID", "its rows in PostgreSQL", "its versions in ClickHouse"]

  step "pick" {
    title = "Choose a recent order in ClickHouse"
    query = preset.latest_wide_orders
    capture = {
      order_id = result.rows[0].order_id
    }
  }

  step "source" {
    title  = "The same order in PostgreSQL"
    text   = "The source keeps one row per order and one per payment."
    engine = "postgres"
    sql    = <<-SQL
      SELECT o.order_id, o.order_status, o.updated_at,
             p.payment_id, p.payment_status, p.paid_at
      FROM orders o
      LEFT JOIN payments p ON o.order_id = p.order_id
      WHERE o.order_id = ${step.pick.order_id}
    SQL

    expect {
      condition = length(result.rows) > 0
      message   = "The order ClickHouse serves is in PostgreSQL."
    }
  }

  step "unpaid" {
    title = "Orders still waiting for their payment"
    query = preset.unpaid_orders
  }

  expected       = "The same order ID connects the PostgreSQL rows and the ClickHouse row."
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
    }
  }

  step "after" {
    title  = "Orders in PostgreSQL again"
    engine = "postgres"
    sql    = "SELECT COUNT(*) AS orders FROM orders"

    expect {
      condition = result.rows[0].orders >= step.wait_for_summary.orders
      message   = "PostgreSQL has moved on since the snapshot: the summary is a value at the time the job ran."
    }
  }

  expected       = "The summary counts at least the orders of the first count and at most those of the last, split by category."
  interpretation = "A bounded job over a live source reads a snapshot: exact for its moment and stale right after. The streaming join reads the same table's changes from the write-ahead log and never ends; rerun the batch job for a new snapshot."
}
