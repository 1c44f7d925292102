package schemas

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The step kinds' table answers what the decoder, the runner and the
// runbook ask of a step, on the seed lab's steps.
func TestStepKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range StepKinds {
		if k.Name == "" || k.Form == "" || k.decode == nil || seen[k.Name] {
			t.Errorf("step kind %+v: needs a unique name, a form and a decoder", k)
		}
		seen[k.Name] = true
		if KindOf(k.Name) != k {
			t.Errorf("KindOf(%q) is not its entry", k.Name)
		}
	}
	lab, diags := NewParser().Load("../labs/orders", Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	e := lab.Experiment("delayed_payment")
	if e == nil {
		t.Fatal("the seed lab has no experiment delayed_payment")
	}
	for name, want := range map[string]struct {
		result bool
		inputs []string
	}{
		"now":              {true, nil},
		"pending":          {true, []string{"step.now.now"}},
		"wait_for_payment": {true, []string{"step.pending.order_ids"}},
		"wait_for_join":    {true, []string{"step.wait_for_payment.order_id"}},
	} {
		s := e.Step(name)
		if s == nil {
			t.Errorf("no step %s", name)
			continue
		}
		var got []string
		for _, r := range e.Inputs(s) {
			got = append(got, r.Text)
		}
		if s.HasResult() != want.result || !reflect.DeepEqual(got, want.inputs) {
			t.Errorf("step %s: result %v, inputs %v; want %v, %v", name, s.HasResult(), got, want.result, want.inputs)
		}
	}
	for _, s := range []*Step{{Kind: StepNote}, {Kind: StepCompose}, {Kind: StepWait, Wait: &WaitStep{Duration: "1s"}}, {Kind: "unknown"}} {
		if s.HasResult() {
			t.Errorf("a %s step has a result", s.Kind)
		}
	}
	if !(&Step{Kind: StepWait, Wait: &WaitStep{Rerun: "x"}}).HasResult() {
		t.Error("a wait that re-runs a step has no result")
	}
}

// A step that needs what the stack leaves out makes its experiment
// unavailable, as its kind's entry says.
func TestStepKindsUnavailable(t *testing.T) {
	dir := t.TempDir()
	src := `lab "u" {
  title = "U"
  seed  = 1
}
stack {
  mysql {}
}
experiment "flink" {
  number = 1
  title  = "F"
  step "s" {
    flink = { show = ["state"] }
  }
}
experiment "batch" {
  number = 2
  title  = "B"
  step "s" {
    lab = "batch"
  }
}
experiment "clickhouse" {
  number = 3
  title  = "C"
  step "s" {
    engine = "clickhouse"
    sql    = "SELECT 1"
  }
}
experiment "fine" {
  number = 4
  title  = "N"
  step "s" {
    lab = "smoke"
  }
  step "q" {
    engine = "mysql"
    sql    = "SELECT 1"
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
	for name, want := range map[string]string{
		"flink":      "needs flink, which the stack does not run",
		"batch":      "needs flink, which the stack does not run",
		"clickhouse": "needs clickhouse, which the stack does not run",
		"fine":       "",
	} {
		if got := lab.Experiment(name).Unavailable; got != want {
			t.Errorf("experiment %s: unavailable %q, want %q", name, got, want)
		}
	}
}
