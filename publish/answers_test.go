package publish

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// seedRecord is the newest committed record of the seed lab, run with
// its controls.
const seedRecord = "../docs/records/orders/20261206-074946-6b7e"

// The page of a real record opens, after the title and its status line,
// with the answers: each question once, each expectation's verdict with
// the value it measured beside its bound, and how its controls judged
// it; then the controls table, then what ran, then the steps.
func TestAnswersFirst(t *testing.T) {
	r, err := record.Read(seedRecord)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	_, body, ok := strings.Cut(page, "</header>")
	if !ok {
		t.Fatal("the page has no header")
	}
	if first := strings.Index(body, "<section"); first < 0 || !strings.HasPrefix(body[first:], `<section class="answers" id="answers">`) {
		t.Fatalf("the first section after the title is not the answers: %.200s", body[max(first, 0):])
	}
	answers, _, _ := strings.Cut(body, `id="controls"`)
	for _, want := range []string{
		// Experiment 01's first expectation: its verdict, the value beside
		// its bound, and the control that showed it able to fail with
		// the values seen under it.
		`<td>Measured: within 30 s ClickHouse serves exactly the orders MySQL held (none missing, none extra after deduplication).</td><td class="held"><strong>held</strong></td><td class="bounds"><span class="bound" title="samples[length(samples) - 1].ms &lt;= 30000"><strong>8103</strong> ≤ 30000</span></td><td class="control-verdict">shown able to fail by orders_lost (2920 == 2925, 34220 &lt;= 30000); taskmanager_paused (51333 &lt;= 30000)</td>`,
		// A sanity check says so, with the lab's reason.
		`<td class="control-verdict">sanity check: It reads MySQL only`,
		// Experiment 07's measures, in the Findings' units, with the
		// value and its bound of the lag expectation.
		`<td><strong>7.60 s</strong></td>`,
		`<strong>7603</strong> ≤ 30000`,
		`<td><strong>0 % of time</strong></td>`,
	} {
		if !strings.Contains(answers, want) {
			t.Errorf("the answers lack %s", want)
		}
	}
	for _, e := range r.Experiments {
		if n := strings.Count(answers, e.Question); n != 1 {
			t.Errorf("the answers state experiment %02d's question %d times, want once", e.Number, n)
		}
	}
	order := []string{`id="answers"`, `id="controls"`, `id="provenance"`, `id="exp-baseline"`}
	last := -1
	for _, id := range order {
		i := strings.Index(page, id)
		if i < last {
			t.Errorf("%s comes before what precedes it in %v", id, order)
		}
		last = i
	}

	md := string(record.Markdown(r))
	last = -1
	for _, h := range []string{"## Answers", "### 01 Establish a baseline", "## Controls", "## What ran", "## 01 Establish a baseline"} {
		i := strings.Index(md, "\n"+h+"\n")
		if i < 0 || i < last {
			t.Errorf("record.md: %q missing or out of order", h)
		}
		last = i
	}
	if want := "| **held** | 8103 ≤ 30000 (`samples[length(samples) - 1].ms <= 30000`)"; !strings.Contains(md, want) {
		t.Errorf("record.md lacks %s", want)
	}
}
