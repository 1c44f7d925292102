package publish

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// TestControlsOnPage shows the verdicts of a run with --controls as a
// table, a blind expectation marked as such, and each control run with
// what was applied and undone; record.md says the same.
func TestControlsOnPage(t *testing.T) {
	r := load(t, "sampled")
	r.Verdicts = []record.Verdict{
		{Experiment: "x", Number: 1, Step: "caught_up", Message: "ClickHouse catches up", Control: "join_cancelled", Healthy: "held", Under: "not held", Seen: []string{"result.rows[0].n == step.source_total.n: 812 == 840"}, Verdict: record.VerdictAbleToFail},
		{Experiment: "x", Number: 1, Step: "jobs", Message: "The job runs", Control: "join_cancelled", Healthy: "held", Under: "held", Verdict: record.VerdictBlind},
		{Experiment: "x", Number: 1, Step: "source", Message: "MySQL has rows", Healthy: "held", Verdict: record.VerdictSanity, Why: "reads MySQL only"},
	}
	r.Controls = []*record.ControlRun{{Experiment: "x", Number: 1, Control: "join_cancelled", Title: "The join is cancelled",
		Applied: []string{"PATCH /jobs/abc?mode=cancel (job order_wide)"}, Undone: []string{"submitted job order_wide again"}, Cap: "45s",
		Steps: []*record.Step{{Name: "caught_up", Status: record.StatusTimedOut, Expectations: []record.Expectation{{Message: "ClickHouse catches up"}}}}}}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"Controls: 1 shown able to fail, 1 blind, 0 not checkable, 1 sanity checks.",
		"<code>result.rows[0].n == step.source_total.n: 812 == 840</code>",
		`<tr class="verdict-blind">`,
		"PATCH /jobs/abc?mode=cancel (job order_wide)",
		"reads MySQL only",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	md := string(record.Markdown(r))
	for _, want := range []string{"## Controls", "| The job runs ", "**blind**", "- Applied: `PATCH /jobs/abc?mode=cancel (job order_wide)`", "**Controls: 1 shown able to fail, 1 blind, 0 not checkable, 1 sanity checks**", "not held: `result.rows[0].n == step.source_total.n: 812 == 840`"} {
		if !strings.Contains(md, want) {
			t.Errorf("record.md lacks %q", want)
		}
	}
}
