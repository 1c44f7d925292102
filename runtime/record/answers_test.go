package record

import (
	"strings"
	"testing"
)

// An answer keeps, of each expectation, the parts that compare a number
// to a bound (not equalities, not texts), and says how its controls
// judged it in one line.
func TestAnswers(t *testing.T) {
	r := &Record{
		Experiments: []*Experiment{{Name: "x", Number: 1, Title: "X", Question: "Is it fast?", Status: ExpDone, Total: 1, Steps: []*Step{{
			Name: "lag", Status: StatusOK,
			Expectations: []Expectation{{Message: "fast", Held: true, Parts: []Part{
				{Expr: "n == 3", Held: true, Values: "3 == 3"},
				{Expr: "p95 <= 30000", Held: true, Values: "7603 <= 30000"},
				{Expr: "x > step.y", Held: true, Values: "5.030000000000000000… > 1"},
				{Expr: `s >= "a"`, Held: true, Values: `"b" >= "a"`},
			}}},
		}}}},
		Verdicts: []Verdict{
			{Experiment: "x", Step: "lag", Index: 0, Control: "slow", Verdict: VerdictAbleToFail, Seen: []string{"p95 <= 30000: 47485 <= 30000"}},
			{Experiment: "x", Step: "lag", Index: 0, Control: "paused", Verdict: VerdictNotCheckable, Under: "not checked: the step failed"},
		},
	}
	as := r.Answers()
	if len(as) != 1 || len(as[0].Expectations) != 1 || !as[0].Controlled {
		t.Fatalf("answers: %+v", as)
	}
	x := as[0].Expectations[0]
	var bounds []string
	for _, b := range x.Bounds {
		bounds = append(bounds, b.Text())
	}
	if got, want := strings.Join(bounds, "; "), "7603 ≤ 30000; 5.03 > 1"; got != want {
		t.Errorf("bounds %q, want %q", got, want)
	}
	if got, want := x.ControlText(), "shown able to fail by slow (47485 <= 30000); not checkable under paused (not checked: the step failed)"; got != want {
		t.Errorf("controls %q\nwant %q", got, want)
	}
	md := string(Markdown(r))
	if !strings.Contains(md, "## Answers") || strings.Count(md, "Is it fast?") != 2 {
		t.Errorf("record.md states the question %d times (once in the answers, once at the experiment):\n%s", strings.Count(md, "Is it fast?"), md)
	}
}
