package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func noteLab(t *testing.T) *labdir.Lab {
	return labdirtest.Load(t, &schemas.Lab{Name: "notes", Seed: 1, Stack: &schemas.Stack{},
		Experiments: []*schemas.Experiment{
			{Name: "first", Number: 1, Title: "First", Steps: []*schemas.Step{
				{Name: "hello", Kind: schemas.StepNote, Note: "Hello."},
				{Name: "pause", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Duration: "1s"}},
				{Name: "bye", Kind: schemas.StepNote, Note: "Bye."},
			}},
			{Name: "second", Number: 2, Title: "Second", Steps: []*schemas.Step{
				{Name: "again", Kind: schemas.StepNote, Note: "Again."},
			}},
		}}, map[string]string{})
}

// TestInterruptedRunResumes: Ctrl-C during a wait keeps the finished
// steps, marks the record interrupted, and --resume runs the rest.
func TestInterruptedRunResumes(t *testing.T) {
	lab := noteLab(t)
	r, err := New(Options{Lab: lab, Experiments: []string{"1", "second"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	rec, err := r.Run(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	back, err := record.Read(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != record.RunInterrupted || len(back.Experiments) != 1 || len(back.Experiments[0].Steps) != 1 {
		t.Fatalf("interrupted record: %s, %+v", back.Status, back.Experiments)
	}
	r2, err := New(Options{Lab: lab, Resume: r.Dir()})
	if err != nil {
		t.Fatal(err)
	}
	rec, err = r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != record.RunFinished || len(rec.Sessions) != 2 || rec.Sessions[0].Status != record.RunInterrupted {
		t.Fatalf("resumed: %s %+v", rec.Status, rec.Sessions)
	}
	var names []string
	for _, e := range rec.Experiments {
		for _, s := range e.Steps {
			names = append(names, s.Name+":"+s.Status)
		}
	}
	if got := len(names); got != 4 || names[1] != "pause:ok" || names[3] != "again:ok" {
		t.Fatalf("steps: %v", names)
	}
	if _, err := New(Options{Lab: lab, Resume: r.Dir(), Experiments: []string{"1"}}); !errors.Is(err, ErrUsage) {
		t.Fatalf("resume with --experiment: %v", err)
	}
}

func TestSelectExperiments(t *testing.T) {
	lab := noteLab(t)
	r, err := New(Options{Lab: lab, Experiments: []string{"second", "01"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Record().Selected; len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Fatalf("selected %v", got)
	}
	_, err = New(Options{Lab: lab, Experiments: []string{"7"}})
	if !errors.Is(err, ErrUsage) || err.Error() != `no experiment "7" in lab notes; it has: 1 first, 2 second` {
		t.Fatalf("unknown experiment: %v", err)
	}
}

// TestQueryValueExpressions checks that the seed lab's expressions work on
// the result shape of a query step: rows with NULLs, for with if, index,
// length.
func TestQueryValueExpressions(t *testing.T) {
	res := &query.Result{
		Columns: []query.Column{{Name: "order_id"}, {Name: "payment_status"}, {Name: "amount"}},
		Rows:    [][]any{{int64(11), "PAID", "12.50"}, {int64(12), nil, nil}, {int64(13), nil, "1"}},
	}
	v := queryValue(res)
	for src, want := range map[string]string{
		`result.rows[0].order_id`: "11",
		`[for r in result.rows : r.order_id if r.payment_status == null][0]`: "12",
		`length(result.rows)`:                        "3",
		`result.rows[1].payment_status == null`:      "true",
		`result.row_count == 3 && !result.truncated`: "true",
		`result.columns`:                             `["order_id","payment_status","amount"]`,
		`result.rows[0].payment_status != "PENDING"`: "true",
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "x", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got, diags := expr.Value(schemas.RunContext(map[string]cty.Value{}, "e", schemas.Captures{}, v))
		if diags.HasErrors() {
			t.Errorf("%s: %s", src, diags.Error())
			continue
		}
		if Display(got) != want {
			t.Errorf("%s = %s, want %s", src, Display(got), want)
		}
	}
}

// TestSeedLabExpressions: every run-time expression of the seed lab, as
// lab.json carries it, parses (heredoc SQL included) and the steps that
// use captured values are gated on them.
func TestSeedLabExpressions(t *testing.T) {
	p := schemas.NewParser()
	loaded, diags := p.Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b, err := schemas.MarshalLab(loaded)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lab.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	lab, err := schemas.ReadLabJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	gated := map[string]bool{}
	for _, e := range lab.Experiments {
		for _, s := range e.Steps {
			var srcs []string
			if s.Query != nil {
				srcs = append(srcs, s.Query.SQL.Source)
			}
			if s.Kafka != nil && s.Kafka.Key != nil {
				srcs = append(srcs, s.Kafka.Key.Source)
			}
			if s.Wait != nil && s.Wait.Until != nil {
				srcs = append(srcs, s.Wait.Until.Source)
			}
			for _, c := range s.Captures {
				srcs = append(srcs, c.Expr.Source)
			}
			for _, x := range s.Expects {
				srcs = append(srcs, x.Condition.Source)
			}
			for _, src := range srcs {
				if src == "" {
					continue
				}
				if _, diags := (schemas.Expr{Source: src}).Parse(); diags.HasErrors() {
					t.Errorf("%s/%s: %q: %s", e.Name, s.Name, src, diags.Error())
				}
			}
			for _, ref := range e.Inputs(s) {
				gated[e.Name+"/"+s.Name+" "+ref.Text] = true
			}
		}
	}
	for _, want := range []string{
		"trace_one_order/source step.pick.order_id",
		"trace_one_order/kafka step.pick.order_id",
		"delayed_payment/wait_for_payment step.pending.order_ids",
		"delayed_payment/wait_for_join step.wait_for_payment.order_id",
		"worker_recovery/revisit experiment.delayed_payment.pending.order_id",
	} {
		if !gated[want] {
			t.Errorf("not gated: %s", want)
		}
	}
}
