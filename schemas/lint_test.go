package schemas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lintSummaries are the summaries of the lints' warnings.
var lintSummaries = map[string]bool{
	lintRestatesWait: true, lintOwnSample: true, lintFinalDistinct: true, lintNoExpect: true, lintSanityOnly: true,
	lintTryFalse: true, lintSanityClaims: true,
}

// TestLintLabs runs the lints over the labs and logs what they find. It
// does not fail on a finding: the labs' experiments are being reworked,
// and the fixtures (testdata/valid/lint_*) pin what each lint finds.
func TestLintLabs(t *testing.T) {
	for _, name := range []string{"orders", "sensors", "orders_pg"} {
		t.Run(name, func(t *testing.T) {
			_, diags := NewParser().Load(filepath.Join("..", "labs", name), Options{Lint: true})
			if diags.HasErrors() {
				t.Logf("the lab has errors, so the lints did not run: %s", diags.Error())
				return
			}
			n := 0
			for _, d := range diags {
				if lintSummaries[d.Summary] {
					n++
					t.Log(formatDiag(d))
				}
			}
			t.Logf("%d lint warning(s)", n)
		})
	}
}

// TestLintOnlyWhenAsked: without Options.Lint a lab that the lints warn
// about loads without those warnings, as render and run load it.
func TestLintOnlyWhenAsked(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "valid", "lint_*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no lint fixtures: %v", err)
	}
	for _, dir := range dirs {
		_, diags := NewParser().Load(dir, Options{})
		for _, d := range diags {
			if lintSummaries[d.Summary] {
				t.Errorf("%s without Lint: %s", dir, formatDiag(d))
			}
		}
	}
}

// TestLintMessages pins one warning of each lint whole: each says why the
// expectation cannot fail and what to write instead.
func TestLintMessages(t *testing.T) {
	want := map[string]string{
		"lint_restates_wait":  `lab.hcl:44,19-85: Expectation restates its wait; Step grown re-runs count until result.rows[0].n > step.before.n && result.rows[0].status != "NEW", and succeeds only when that held; this expect is the wait's own condition, so it cannot fail. Measure what the wait does not ensure: compare with a value captured before the change (step.NAME.VALUE), or with another layer.`,
		"lint_own_sample":     `lab.hcl:46,19-47: Expectation compares the step with its own sample; samples[…] are the runs of step after itself, so this expect compares the step's series with itself over the 4s it samples: a value that never goes back, such as a topic's end offsets or a row count, cannot fail it. Compare with a value captured by a step before the change (capture = { … } there, step.NAME.VALUE here).`,
		"lint_final_distinct": `lab.hcl:65,19-94: Count and distinct count are equal under FINAL; Step serving reads serving.wide with FINAL, which keeps one row per key (order_id), so n (count()) always equals orders (uniqExact(order_id)): an expect that compares them, directly or through a common value, cannot find a duplicate row. To see whether a key arrived more than once, count its rows without FINAL (every version ClickHouse received, before merges); to measure completeness, compare the distinct count with another layer, such as the source. The rest of the expect is the wait's condition (result.rows[0].orders == step.source.n), so none of it can fail.`,
		"lint_no_expect":      `lab.hcl:18,1-19: Experiment without expectations; Experiment looks has no expect, so nothing in it can fail: a run records what its steps returned, not an answer. Add an expect that measures its question ("How many orders are there?"), such as a value against one captured before the change, or one layer against another.`,
		"lint_sanity_only":    `lab.hcl:24,1-23: Experiment only checks that steps returned something; Every expect of experiment something (steps source, topic) only checks that a step returned rows or messages, as length(result.rows) > 0 does: that shows the step found something, not the experiment's answer. Add an expect that measures its question ("Do orders reach Kafka?"), such as a value against one captured before the change, or one layer against another.`,
		"lint_try_false":      `lab.hcl:41,19-125: Condition reads an error as not held; In step topic, try(…, false) turns an error evaluating the condition, such as an index into an empty list or a missing attribute, into false: the record then says "not held" where nothing was measured, which reads as the pipeline failing the check, and under a control as the control detected. Guard what may be missing in the condition itself (length(xs) > 0 && …), or leave try out so that an error is recorded as the expectation not checked, with the error.`,
		"lint_sanity_claims":  `lab.hcl:35,19-57: Sanity check claims a measurement; This expect of step count is a sanity check (sanity = "…"): it checks the lab, not the pipeline, and no control shows it able to fail, yet its message begins "Measured", which the record reads as a measurement. Say what it checks ("Checked: …"), or, if it does measure the pipeline, name the controls it detects (detects = [control.NAME]) instead of sanity.`,
	}
	for fixture, w := range want {
		_, diags := NewParser().Load(filepath.Join("testdata", "valid", fixture), Options{Lint: true})
		var got []string
		found := false
		for _, d := range diags {
			got = append(got, formatDiag(d))
			found = found || formatDiag(d) == w
		}
		if !found {
			t.Errorf("%s: no warning\n%s\namong:\n%s", fixture, w, strings.Join(got, "\n"))
		}
	}
}

// TestLintSkipsBrokenLabs: a lab with errors gets no lints, which would
// only add noise to its errors.
func TestLintSkipsBrokenLabs(t *testing.T) {
	dir := t.TempDir()
	src := `lab "broken" {
  title = "Broken"
}

stack {
  mysql {}
}

experiment "nothing" {
  number = 1
  title  = "Nothing"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"
    capture = { n = step.nowhere.n }
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := NewParser().Load(dir, Options{Lint: true})
	if !diags.HasErrors() {
		t.Fatal("the lab loaded without errors")
	}
	for _, d := range diags {
		if lintSummaries[d.Summary] {
			t.Errorf("lint on a lab with errors: %s", formatDiag(d))
		}
	}
}

// oneExpectLab is a lab with a control and one expect, written as its
// attributes.
func oneExpectLab(t *testing.T, expect string) string {
	t.Helper()
	dir := t.TempDir()
	src := `lab "one" {
  title = "One expectation"
}

stack {
  mysql {}
}

table "orders" {
  key = ["order_id"]

  column "order_id" { type = "bigint" }

  store "mysql" {}
}

control "db_down" {
  title = "MySQL is stopped"
  stop  = ["mysql"]
}

experiment "count" {
  number = 1
  title  = "Count"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"

    expect {
` + expect + `
    }
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// lintCount loads the lab with the lints and counts the warnings with
// that summary; any error fails the test.
func lintCount(t *testing.T, dir, summary string) int {
	t.Helper()
	_, diags := NewParser().Load(dir, Options{Lint: true})
	if diags.HasErrors() {
		t.Fatalf("the lab has errors: %s", diags.Error())
	}
	n := 0
	for _, d := range diags {
		if d.Summary == summary {
			n++
		}
	}
	return n
}

// TestLintTryFalse: each try(…, false) of a condition warns, wherever it
// is; a try with any other fallback does not.
func TestLintTryFalse(t *testing.T) {
	for cond, want := range map[string]int{
		`try(result.rows[0].n > 0, false)`: 1,
		`length(result.rows) == 1 && (try(result.rows[0].n, 0) > 0 || try(result.rows[1].n > 0, (false)))`: 1,
		`try(try(result.rows[0].n, 0) > 0, false) && !try(result.rows[1].n > 0, false)`:                    2,
		`try(result.rows[0].n > 0, true)`:                 0,
		`try(result.rows[0].n, 0) > 0`:                    0,
		`length(result.rows) > 0 && result.rows[0].n > 0`: 0,
		`result.rows[0].n > 0 != false`:                   0,
	} {
		dir := oneExpectLab(t, "condition = "+cond+"\nmessage = \"Counted.\"\ndetects = [control.db_down]")
		if got := lintCount(t, dir, lintTryFalse); got != want {
			t.Errorf("%s: %d warning(s), want %d", cond, got, want)
		}
	}
}

// TestLintSanityClaims: a sanity check whose message begins "Measured"
// (any case, after spaces) warns; one that says what it checks does not,
// and neither does an expectation that names the controls it detects.
func TestLintSanityClaims(t *testing.T) {
	for attrs, want := range map[string]int{
		`message = "Measured: the count is not negative."` + "\n" + `sanity = "It checks the query."`: 1,
		`message = "  MEASURED the count."` + "\n" + `sanity = "It checks the query."`:                1,
		`message = "Checked: the count is not negative."` + "\n" + `sanity = "It checks the query."`:  0,
		`message = "The count was measured."` + "\n" + `sanity = "It checks the query."`:              0,
		`message = "Measured: the count is not negative."` + "\n" + `detects = [control.db_down]`:     0,
	} {
		dir := oneExpectLab(t, "condition = result.rows[0].n >= 0\n"+attrs)
		if got := lintCount(t, dir, lintSanityClaims); got != want {
			t.Errorf("%s: %d warning(s), want %d", attrs, got, want)
		}
	}
}
