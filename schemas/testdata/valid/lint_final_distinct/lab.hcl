# ClickHouse's FINAL keeps one row per key of a table's ReplacingMergeTree,
# so count() equals a distinct count of the key: an expect comparing the
# two, directly or through a common value, cannot fail. Without FINAL, or
# with a distinct count of another column, it can.
lab "final_distinct" {
  title = "count() against a distinct count under FINAL"
}

stack {
  mysql {}
  clickhouse {
    database = "serving"
  }
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }
  column "status" { type = "string(16)" }

  store "mysql" {}
  store "clickhouse" {
    name = "wide"
  }
}

table "hourly" {
  key = ["hour", "category"]

  column "hour" { type = "timestamp(3)" }
  column "category" { type = "string(16)" }
  column "n" { type = "bigint" }

  store "clickhouse" {}
}

experiment "cohort" {
  number = 1
  title  = "The cohort in ClickHouse"

  step "source" {
    engine  = "mysql"
    sql     = "SELECT COUNT(*) AS n, MAX(order_id) AS last_id FROM orders"
    capture = { n = result.rows[0].n, last_id = result.rows[0].last_id }
  }

  step "serving" {
    engine = "clickhouse"
    sql    = "SELECT count() AS n, uniqExact(order_id) AS orders FROM serving.wide FINAL WHERE order_id <= ${step.source.last_id}"

    expect {
      condition = result.rows[0].n == result.rows[0].orders # WARNING: Count and distinct count are equal under FINAL
      message   = "One row per order."
    }
  }

  step "complete" {
    wait = {
      rerun = step.serving
      until = result.rows[0].orders == step.source.n
    }

    expect {
      condition = result.rows[0].orders == step.source.n && result.rows[0].n == step.source.n # WARNING: Count and distinct count are equal under FINAL
      message   = "Every order has exactly one row."
    }
    expect {
      condition = result.rows[0].orders >= step.source.n
      message   = "The distinct count against MySQL's, without count()."
    }
  }

  step "aliased" {
    engine = "clickhouse"
    sql    = "SELECT COUNT(*) AS total, COUNT(DISTINCT w.order_id) AS keys FROM wide AS w FINAL"

    expect {
      condition = length([for r in result.rows : r if r.total != r.keys]) == 0 # WARNING: Count and distinct count are equal under FINAL
      message   = "Through a for expression."
    }
  }

  step "composite" {
    engine = "clickhouse"
    sql    = "SELECT count() AS n, uniqExact(category, hour) AS keys FROM serving.hourly FINAL"

    expect {
      condition = result.rows[0].n == result.rows[0].keys # WARNING: Count and distinct count are equal under FINAL
      message   = "A key of two columns."
    }
  }

  step "without_final" {
    engine = "clickhouse"
    sql    = "SELECT count() AS n, uniqExact(order_id) AS orders FROM serving.wide"

    expect {
      condition = result.rows[0].n >= result.rows[0].orders
      message   = "Without FINAL, versions not merged yet are rows of their own."
    }
  }

  step "not_the_key" {
    engine = "clickhouse"
    sql    = "SELECT count() AS n, uniqExact(status) AS statuses FROM serving.wide FINAL"

    expect {
      condition = result.rows[0].n >= result.rows[0].statuses
      message   = "A distinct count of another column."
    }
  }
}
