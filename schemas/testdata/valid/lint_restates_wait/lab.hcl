# An expect on a wait that restates the wait's until cannot fail: the
# wait succeeds only once until held. Written the same, in other words
# (reordered, swapped, in parentheses, over several lines) or as part of
# until, it is warned about; an expect that measures more is not.
lab "restates_wait" {
  title = "Expectations that restate their wait"
}

stack {
  mysql {}
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }
  column "status" { type = "string(16)" }

  store "mysql" {}
}

experiment "grows" {
  number = 1
  title  = "The table grows"

  step "before" {
    engine  = "mysql"
    sql     = "SELECT COUNT(*) AS n FROM orders"
    capture = { n = result.rows[0].n }
  }

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n, MAX(status) AS status FROM orders"
  }

  step "grown" {
    wait = {
      rerun = step.count
      until = result.rows[0].n > step.before.n && result.rows[0].status != "NEW"
    }

    expect {
      condition = result.rows[0].n > step.before.n && result.rows[0].status != "NEW" # WARNING: Expectation restates its wait
      message   = "The same condition."
    }
    expect {
      condition = (("NEW" != result.rows[0].status) && step.before.n < result.rows[0].n) # WARNING: Expectation restates its wait
      message   = "The same condition in other words."
    }
    expect {
      condition = (result.rows[0].n > # WARNING: Expectation restates its wait
        step.before.n # the count before
      )
      message = "Part of it, over several lines."
    }
    expect {
      condition = result.rows[0].n > step.before.n && result.rows[0].n - step.before.n < 1000
      message   = "More than the wait: it did not grow too fast."
    }
  }

  # A wait for any row; its expect compares with a capture of an earlier
  # step, which the wait does not ensure.
  step "any" {
    wait = {
      rerun = step.count
      until = length(result.rows) > 0
    }

    expect {
      condition = result.rows[0].n >= step.before.n
      message   = "Nothing was deleted."
    }
  }
}
