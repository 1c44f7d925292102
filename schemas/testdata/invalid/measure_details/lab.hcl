# A measure's samples, window and resolution: each a static value checked
# when the lab is loaded, or an expression over captures checked like the
# value; what is wrong is reported where it is written.
lab "measure_details" {
  title = "Measures that say wrongly what they summarise"
}

variable "window" {
  type    = string
  default = "a while"
}

stack {
  mysql {}
}

experiment "one" {
  number = 1
  title  = "One"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM dual"
    capture = {
      n = result.rows[0].n
    }
  }

  measure "fine" {
    title      = "Declared right"
    value      = step.count.n
    samples    = step.count.n
    window     = "30s"
    resolution = 1
  }

  measure "half_a_sample" {
    title   = "Half a sample"
    value   = step.count.n
    samples = 1.5 # ERROR: Invalid samples
  }

  measure "negative" {
    title   = "Fewer than none"
    value   = step.count.n
    samples = -1 # ERROR: Invalid samples
  }

  measure "soon" {
    title  = "A window that is no duration"
    value  = step.count.n
    window = var.window # ERROR: Invalid window
  }

  measure "instant" {
    title      = "A resolution of nothing"
    value      = step.count.n
    resolution = "0s" # ERROR: Invalid resolution
  }

  measure "listed" {
    title      = "A resolution that is a list"
    value      = step.count.n
    resolution = ["1s"] # ERROR: Invalid resolution
  }

  measure "from_result" {
    title   = "Samples from the step's own result"
    value   = step.count.n
    samples = length(result.rows) # ERROR: result is not available here
  }

  measure "from_nowhere" {
    title  = "A window from a step that does not capture it"
    value  = step.count.n
    window = step.count.window_s # ERROR: Value not captured
  }
}
