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
