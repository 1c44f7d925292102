package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func seedLab(t *testing.T) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return lab
}

// TestNeededUnderControl keeps what the expectations naming the control
// read and what acts on the stack or lets time pass before them, and
// leaves out reads nobody checks, smoke checks and whatever follows the
// last expectation that names it.
func TestNeededUnderControl(t *testing.T) {
	lab := seedLab(t)
	for _, c := range []struct {
		exp, control string
		want         map[string]bool
	}{
		{"baseline", "taskmanager_stopped", map[string]bool{"smoke": false, "source_total": true, "serving_total": true, "caught_up": true, "jobs": true, "source_counts": false}},
		{"worker_recovery", "no_restarts", map[string]bool{"before": true, "job_before": true, "kafka_offsets": true, "kafka_during": true, "last_before": true, "stop": true, "observe": true,
			"start": true, "last_during": true, "after": true, "cohort_complete": true, "smoke": false, "batch": false, "revisit": false}},
		{"hourly_summary", "summary_paid_only", map[string]bool{"batch": true, "category": true, "hour_in_mysql": true, "detail_fresh": true, "detail_served": true, "hourly": false}},
	} {
		got := neededUnderControl(lab.Experiment(c.exp), lab.Control(c.control))
		for step, w := range c.want {
			if got[step] != w {
				t.Errorf("%s under %s: step %s needed = %v, want %v", c.exp, c.control, step, got[step], w)
			}
		}
	}
	// Under the premature status only serving_before's expectation is
	// aimed: the payment and the waits after it are not run.
	got := neededUnderControl(lab.Experiment("delayed_payment"), lab.Control("status_premature"))
	for step, w := range map[string]bool{"pending": true, "serving_before": true, "wait_for_payment": false, "wait_for_join": false, "paid_row": false} {
		if got[step] != w {
			t.Errorf("delayed_payment under status_premature: step %s needed = %v, want %v", step, got[step], w)
		}
	}
	// A wait before the last aimed expectation runs as on the healthy
	// run, though nothing checks it: time passes as it did there.
	tut, diags := schemas.NewParser().Load("../../docs/tutorial/bikes", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got = neededUnderControl(tut.Experiment("arrival_updates_trip"), tut.Control("status_stuck"))
	if !got["returned"] || !got["trip"] || !got["versions"] {
		t.Errorf("arrival_updates_trip under status_stuck: needed %v, want the wait returned before versions", got)
	}
}

// TestVerdicts: held when healthy and not under the control is shown
// able to fail, held under it too is blind, a step that could not run
// under it counts as failing, a sanity check keeps its reason.
func TestVerdicts(t *testing.T) {
	lab := seedLab(t)
	e := lab.Experiment("baseline")
	held := func(name string, ok ...bool) *record.Step {
		s := &record.Step{Name: name, Status: record.StatusOK}
		for _, h := range ok {
			s.Expectations = append(s.Expectations, record.Expectation{Held: h})
		}
		return s
	}
	healthy := &record.Experiment{Name: e.Name, Number: e.Number, Status: record.ExpDone,
		Steps: []*record.Step{held("caught_up", true), held("jobs", true, true)}}
	lost := &record.ControlRun{Experiment: e.Name, Control: "orders_lost", Steps: []*record.Step{held("caught_up", false)}}
	under := &record.ControlRun{Experiment: e.Name, Control: "taskmanager_stopped",
		Steps: []*record.Step{held("caught_up", false), held("jobs", true, false)}}
	r := &Runner{lab: lab, rec: &record.Record{Experiments: []*record.Experiment{healthy}, Controls: []*record.ControlRun{lost, under}}}
	r.verdicts(e, healthy)
	got := map[string]string{}
	for _, v := range r.rec.Verdicts {
		if v.Control == "orders_lost" || v.Control == "taskmanager_stopped" {
			got[v.Step+"/"+string(rune('0'+v.Index))] = v.Verdict
		}
	}
	want := map[string]string{"caught_up/0": record.VerdictAbleToFail, "jobs/0": record.VerdictBlind, "jobs/1": record.VerdictAbleToFail}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], w, got)
		}
	}
	if r.rec.Blind() != 1 {
		t.Errorf("Blind() = %d, want 1", r.rec.Blind())
	}
	under.Steps = under.Steps[:1] // jobs did not run under the control
	r.verdicts(e, healthy)
	for _, v := range r.rec.Verdicts {
		if v.Step == "jobs" && (v.Verdict != record.VerdictNotCheckable || v.Under != "not checked: the step did not run") {
			t.Errorf("a step that did not run under the control: %+v", v)
		}
	}
	// caught_up's other control did not run: shown by orders_lost alone,
	// it is not among them.
	if un := r.rec.Unshown(); len(un) != 2 || !strings.Contains(un[0], "`jobs`") {
		t.Errorf("Unshown() = %q, want jobs' two expectations", un)
	}
}

// TestConditionParts splits a condition at its top-level && and shows
// each comparison's two sides as evaluated.
func TestConditionParts(t *testing.T) {
	x := schemas.Expr{Source: `result.n == 3 && (result.s != "PAID") && length(result.rows) > 0`}
	ctx := schemas.RunContext(nil, "e", schemas.Captures{}, cty.ObjectVal(map[string]cty.Value{
		"n": cty.NumberIntVal(2), "s": cty.StringVal("PENDING"), "rows": cty.ListValEmpty(cty.String)}))
	got := conditionParts(x, ctx)
	want := []record.Part{
		{Expr: "result.n == 3", Values: "2 == 3"},
		{Expr: `(result.s != "PAID")`, Held: true, Values: `"PENDING" != "PAID"`},
		{Expr: "length(result.rows) > 0", Values: "0 > 0"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("conditionParts:\n got %+v\nwant %+v", got, want)
	}
}

// TestMutantDiff: a mutant's record shows where its SQL differs from
// the job's, without the comments that say why.
func TestMutantDiff(t *testing.T) {
	lab := seedLab(t)
	r := &Runner{lab: lab}
	d := r.mutantDiff(lab.Control("status_stale"))
	for _, want := range []string{"--- jobs/order_wide\n", "+++ control status_stale\n",
		"-  COALESCE(p.payment_status, 'PENDING') AS payment_status,\n", "+  'PENDING' AS payment_status,\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "Mutant of") || strings.Contains(d, "o.customer_id") {
		t.Errorf("the diff shows comments or lines far from the change:\n%s", d)
	}
	// A mutant in its settings alone shows them.
	if d := r.mutantDiff(lab.Control("no_restarts")); !strings.Contains(d, "+SET 'restart-strategy.type' = 'none';\n") {
		t.Errorf("no_restarts' diff lacks its setting:\n%s", d)
	}
	if r.mutantDiff(lab.Control("taskmanager_stopped")) != "" {
		t.Error("a control that is not a mutant has a diff")
	}
}

// An automatic mutant runs as the job's own rendered script with the
// mutant's statement in place of its INSERT: the SET lines and the
// tables' DDL are the job's; its diff is Flink's unparse of the job's
// query against the mutant's.
func TestAutoMutantScript(t *testing.T) {
	lab, diags := schemas.NewParser().Load("../../docs/tutorial/bikes", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	dir, _ := renderLab(t, lab)
	ms := bikesMutants(t)
	ld, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ld.Lab.AddAutoMutants(ms); err != nil {
		t.Fatal(err)
	}
	r := &Runner{lab: ld.Lab, opt: Options{Lab: ld}}
	own, _, err := r.script("job", schemas.JobFile("trips"))
	if err != nil {
		t.Fatal(err)
	}
	c := ld.Lab.Control("trips/inner_join:arrivals")
	got, what, err := r.mutantScript(c)
	if err != nil {
		t.Fatal(err)
	}
	if what != "sql/flink/trips.sql with the mutant's statement" {
		t.Errorf("the mutant is said to be %q", what)
	}
	if len(got) != len(own) {
		t.Fatalf("%d statements, the job's script has %d", len(got), len(own))
	}
	changed := 0
	for i := range own {
		if got[i] != own[i] {
			changed++
			if (flinksql.Statement{Text: own[i]}).Keyword() != "INSERT" || got[i] != c.Auto.Statement {
				t.Errorf("statement %d changed: %q → %q", i, own[i], got[i])
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d statements changed, want the INSERT alone", changed)
	}
	d := r.mutantDiff(c)
	if !strings.Contains(d, "-  LEFT JOIN `arrivals`") || !strings.Contains(d, "+  INNER JOIN `arrivals`") || strings.Count(d, "\n-") != 1 {
		t.Errorf("the diff is not the join alone:\n%s", d)
	}
}

// A mutant no experiment names (here: every expectation's controls
// taken away, as for a job whose output no step reads) runs against
// nothing and is kept in the record as a survivor that says so.
func TestUnseenAutoMutantIsScored(t *testing.T) {
	lab, diags := schemas.NewParser().Load("../../docs/tutorial/bikes", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, e := range lab.Experiments {
		for _, s := range e.Steps {
			for _, x := range s.Expects {
				x.Detects = nil
			}
		}
	}
	ms := bikesMutants(t)
	if err := lab.AddAutoMutants(ms[:2]); err != nil {
		t.Fatal(err)
	}
	r := &Runner{lab: lab, rec: &record.Record{}, dir: t.TempDir()}
	for range 2 { // a resumed session does not add them again
		if err := r.runControls(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.rec.Unseen) != 2 || r.rec.Unseen[0].Control != ms[0].ControlName() || r.rec.Unseen[0].Diff == "" {
		t.Fatalf("unseen: %+v", r.rec.Unseen)
	}
	if got := r.rec.MutationScore(); !strings.HasPrefix(got, "automatic mutants: 0 of 2 killed (0 %)") {
		t.Errorf("MutationScore() = %q", got)
	}
}

// bikesMutants are the tutorial lab's automatic mutants, as Flink's
// parser derived them (schemas/testdata/mutants/bikes.json).
func bikesMutants(t *testing.T) []schemas.AutoMutant {
	t.Helper()
	f, err := os.Open("../../schemas/testdata/mutants/bikes.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, _, err := schemas.ReadAutoMutants(f)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
