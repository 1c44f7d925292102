# One mistake, one error: the producer's block has a typo, and what
# refers to the producer (a compare, a compose step naming its service)
# is not reported again.
lab "knock_on" {
  title = "One typo"
}

stack {
  mysql {}
}

table "t" {
  key = ["id"]
  column "id" { type = "bigint" }
  column "x" { type = "double" }
  store "mysql" {}
}

producer "p" {
  table = table.t
  speed = 3 # ERROR: Unsupported argument
  rate  = 1
  field "id" { value = sequence(1) }
  field "x" { value = uniform(0, 1) }
}

experiment "one" {
  number = 1
  title  = "One"

  step "values" {
    engine = "mysql"
    sql    = "SELECT x FROM t"
    compare = {
      declared = producer.p.field.x
      column   = "x"
    }
  }

  step "stop" {
    compose = "stop producer"
  }
}
