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

// TestMutantsOnPage: a mutant is killed when an expectation was shown
// able to fail under it; a survivor is named with its diff, on the page
// and in record.md.
func TestMutantsOnPage(t *testing.T) {
	r := load(t, "sampled")
	diff := "--- jobs/order_wide\n+++ control status_stale\n@@ -5,3 +5,3 @@\n-  COALESCE(p.payment_status, 'PENDING') AS payment_status,\n+  'PENDING' AS payment_status,\n"
	r.Controls = []*record.ControlRun{
		{Experiment: "x", Number: 1, Control: "status_stale", Title: "The status never updates", Kind: "mutant", Diff: diff},
		{Experiment: "y", Number: 2, Control: "status_stale", Title: "The status never updates", Kind: "mutant", Diff: diff},
		{Experiment: "x", Number: 1, Control: "orders_lost", Title: "One order in ten lost", Kind: "mutant", Diff: "-a\n+b\n"},
		{Experiment: "x", Number: 1, Control: "join_cancelled", Title: "The join is cancelled", Kind: "kill switch"},
	}
	r.Verdicts = []record.Verdict{
		{Experiment: "x", Number: 1, Step: "a", Control: "status_stale", Healthy: "held", Verdict: record.VerdictNotCheckable},
		{Experiment: "y", Number: 2, Step: "b", Control: "status_stale", Healthy: "held", Verdict: record.VerdictAbleToFail},
		{Experiment: "x", Number: 1, Step: "a", Control: "orders_lost", Healthy: "held", Verdict: record.VerdictBlind},
		{Experiment: "x", Number: 1, Step: "a", Control: "join_cancelled", Healthy: "held", Verdict: record.VerdictAbleToFail},
	}
	if got, want := r.MutationScore(), "1 of 2 mutants killed (survived: orders_lost)"; got != want {
		t.Errorf("MutationScore() = %q, want %q", got, want)
	}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 of 2 mutants killed (survived: orders_lost).", "<code>orders_lost</code> (One order in ten lost): <strong>survived</strong>", "PENDING&#39; AS payment_status,"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	md := string(record.Markdown(r))
	for _, want := range []string{"### Mutants", "- `status_stale` (The status never updates): killed.", "```diff\n--- jobs/order_wide"} {
		if !strings.Contains(md, want) {
			t.Errorf("record.md lacks %q", want)
		}
	}
}

// Automatic mutants (labgen run --mutants) are scored apart from the
// lab's own, and their blind verdicts are survivors' traces: not counted
// as blind expectations, not rows of the verdict table.
func TestAutomaticMutantsOnPage(t *testing.T) {
	r := load(t, "sampled")
	r.Controls = []*record.ControlRun{
		{Experiment: "x", Number: 1, Control: "status_stale", Title: "The status never updates", Kind: "mutant", Diff: "-a\n+b\n"},
		{Experiment: "x", Number: 1, Control: "trips/null_column:rider", Title: "rider → NULL", Kind: "automatic mutant", Diff: "-r\n+NULL\n"},
		{Experiment: "x", Number: 1, Control: "trips/lose_keys", Title: "one key in ten lost", Kind: "automatic mutant"},
	}
	r.Verdicts = []record.Verdict{
		{Experiment: "x", Number: 1, Step: "a", Control: "status_stale", Healthy: "held", Verdict: record.VerdictAbleToFail},
		{Experiment: "x", Number: 1, Step: "a", Control: "trips/null_column:rider", Healthy: "held", Verdict: record.VerdictBlind},
		{Experiment: "x", Number: 1, Step: "a", Control: "trips/lose_keys", Healthy: "held", Verdict: record.VerdictBlind},
		{Experiment: "x", Number: 1, Step: "b", Control: "trips/lose_keys", Healthy: "held", Verdict: record.VerdictAbleToFail},
	}
	// A mutant of a job no experiment reads ran against nothing: it
	// counts, as a survivor that says so.
	r.Unseen = []record.UnseenMutant{{Control: "audit/lose_keys", Title: "one key in ten lost", Diff: "+WHERE MOD(k, 10) <> 0\n"}}
	// One that could not be applied ran nothing: a survivor that says why.
	r.Controls = append(r.Controls, &record.ControlRun{Experiment: "x", Number: 1, Control: "trips/null_column:ended_at", Title: "ended_at → NULL", Kind: "automatic mutant", Error: "the control could not be applied, so the experiment did not run under it: the mutant of job trips: still FAILED after 3m0s"})
	if got, want := r.MutationScore(), "1 of 1 mutants killed; automatic mutants: 1 of 4 killed (25 %) (survived: trips/null_column:rider, trips/null_column:ended_at, audit/lose_keys)"; got != want {
		t.Errorf("MutationScore() = %q, want %q", got, want)
	}
	if r.Blind() != 0 || r.Failure(true) != "" {
		t.Errorf("an automatic mutant's blind verdicts count: Blind() = %d, Failure = %q", r.Blind(), r.Failure(true))
	}
	if got := r.VerdictSummary(); !strings.HasPrefix(got, "1 shown able to fail, 0 blind,") {
		t.Errorf("VerdictSummary() = %q", got)
	}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<code>trips/lose_keys</code> (one key in ten lost): killed by 01 <code>b</code>", "<code>trips/null_column:rider</code> (rider → NULL): <strong>survived</strong>: no expectation was false under it",
		"<code>audit/lose_keys</code> (one key in ten lost): <strong>survived</strong>: no experiment reads what its job writes",
		"<code>trips/null_column:ended_at</code> (ended_at → NULL): <strong>survived</strong>: the control could not be applied, so the experiment did not run under it: the mutant of job trips: still FAILED after 3m0s"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, "<strong>blind</strong>") != 0 {
		t.Error("the verdict table has the automatic mutants' blind rows")
	}
}
