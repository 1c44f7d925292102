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
