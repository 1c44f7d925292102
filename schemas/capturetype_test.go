package schemas

import (
	"os"
	"path/filepath"
	"testing"
)

// The runbook's placeholder for a captured number is written as a run
// writes the number: jsonencode leaves it unquoted. A string, a value of
// unknown type and quotes the lab wrote itself stay as they are.
func TestNumberPlaceholders(t *testing.T) {
	dir := t.TempDir()
	src := `lab "n" {
  title = "N"
}
stack {
  mysql {}
  kafka {}
}
table "orders" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  column "status" { type = "string(16)" }
  store "mysql" {}
  store "kafka" { topic = "orders-topic" }
}
experiment "e" {
  number = 1
  title  = "E"
  step "candidates" {
    engine = "mysql"
    sql    = "SELECT o.order_id, status, COUNT(*) AS n, CAST(1 AS DOUBLE) AS one FROM orders o GROUP BY o.order_id, status"
  }
  step "pick" {
    wait = {
      rerun = step.candidates
      until = length(result.rows) > 0
    }
    capture = {
      order_id = result.rows[0].order_id
      status   = result.rows[0]["status"]
      n        = result.rows[0].n
      one      = result.rows[0].one
      first    = result.rows[0]
    }
  }
  step "number" {
    kafka = {
      topic = "orders-topic"
      key   = jsonencode({ order_id = step.pick.order_id, one = step.pick.one })
    }
  }
  step "string" {
    kafka = {
      topic = "orders-topic"
      key   = jsonencode({ status = step.pick.status })
    }
  }
  step "unknown" {
    kafka = {
      topic = "orders-topic"
      key   = jsonencode({ n = step.pick.n, first = step.pick.first })
    }
  }
  step "quoted" {
    kafka = {
      topic = "orders-topic"
      key   = "\"${step.pick.order_id}\""
    }
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := NewParser().Load(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	e := lab.Experiment("e")
	for step, want := range map[string]string{
		"number":  `{"one":<one from step pick>,"order_id":<order_id from step pick>}`,
		"string":  `{"status":"<status from step pick>"}`,
		"unknown": `{"first":"<first from step pick>","n":"<n from step pick>"}`,
		"quoted":  `"<order_id from step pick>"`,
	} {
		if got := e.Step(step).Kafka.Key.Text; got != want {
			t.Errorf("step %s: key %s, want %s", step, got, want)
		}
	}
}
