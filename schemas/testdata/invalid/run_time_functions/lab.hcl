# Run-time expressions that call a function a run does not have, or give
# one a wrong number of arguments: the loader reports each at the call,
# not the run when it gets there.
lab "run_time_functions" {
  title = "Run-time expressions calling functions that do not work"
}

stack {
  mysql {}
}

experiment "one" {
  number = 1
  title  = "One"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n, 'x' AS tag FROM dual"
    capture = {
      n     = result.rows[0].n
      total = sum(result.rows[*].n)       # ERROR: Call to unknown function
      rows  = lenght(result.rows)         # ERROR: Call to unknown function
      tag   = upper(result.rows[0].tag, 1) # ERROR: Too many function arguments
      note  = "${file("notes.txt")}: ${result.rows[0].tag}" # ERROR: Function not available at run time
      notes = file("notes.txt")           # ERROR: Function not available at run time
      fixed = frobnicate(1)               # ERROR: Call to unknown function
      inner = max(1, sum(result.rows[0].n)) # ERROR: Call to unknown function
    }
    sample = { n = frobnicate(result.rows[0].n) } # ERROR: Call to unknown function

    expect {
      condition = frobnicate(result.rows[0].n) > 0 # ERROR: Call to unknown function
      message   = "Rows were counted."
    }
    expect {
      condition = seconds_between(result.rows[0].tag) > 0 # ERROR: Not enough function arguments
      message   = "Some time passed."
    }
    expect {
      condition = max(result.rows[*].n...) >= 0 && coalesce(result.rows[0].n) != null
      message   = "Expanded and variadic calls are fine."
    }
  }

  step "again" {
    wait = {
      rerun = step.count
      until = lenght(result.rows) > 0 # ERROR: Call to unknown function
    }
  }

  step "filled_in" {
    engine = "mysql"
    sql    = "SELECT ${sql_string(step.count.tag, 2)} AS tag" # ERROR: Too many function arguments
  }

  measure "total" {
    title = "Total"
    value = frobnicate(step.count.n) # ERROR: Call to unknown function
  }
}
