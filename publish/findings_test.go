package publish

import (
	"os"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// A record's measures are its findings: in each experiment's answer at
// the top of the page and of record.md, and rows of the comparison of
// two records.
func TestFindingsOnPage(t *testing.T) {
	r := load(t, "sampled")
	lag := 4.1
	r.Experiments[0].Measures = []record.Measure{
		{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Value: &lag},
		{Name: "none", Title: "nothing to measure", Error: "step.x.y was not captured"},
	}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<section class="answers" id="answers">`, "payment → ClickHouse", "<td><strong>4.10 s</strong></td>", "<td><strong>not measured</strong></td><td>step.x.y was not captured</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, `id="answers"`) > strings.Index(page, `id="provenance"`) {
		t.Error("the findings are not at the top of the page")
	}
	md := string(record.Markdown(r))
	if !strings.Contains(md, "## Answers") || !strings.Contains(md, "| payment → ClickHouse") || !strings.Contains(md, "**4.10 s**") {
		t.Errorf("record.md lacks the findings:\n%s", md[:min(len(md), 2000)])
	}

	other := load(t, "sampled")
	slower := 8.1
	other.Experiments[0].Measures = []record.Measure{{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Value: &slower}}
	cmp, err := Comparison([]*record.Record{r, other}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"payment → ClickHouse", "4.10 s", "8.10 s"} {
		if !strings.Contains(string(cmp), want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
}

// Beside a measured value the page and record.md show what it
// summarises, and the page names its definition.
func TestFindingDetails(t *testing.T) {
	r := load(t, "sampled")
	lag, one, res := 4.1, int64(1), 1.0
	r.Experiments[0].Measures = []record.Measure{
		{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Definition: "sha256:0123456789ab", Value: &lag, Samples: &one, ResolutionS: &res},
	}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `<td title="definition sha256:0123456789ab">payment → ClickHouse</td><td><strong>4.10 s</strong></td><td>n = 1, resolution 1 s</td>`; !strings.Contains(string(b), want) {
		t.Errorf("the page lacks %s", want)
	}
	if md := string(record.Markdown(r)); !strings.Contains(md, "**4.10 s**") || !strings.Contains(md, "n = 1, resolution 1 s") {
		t.Errorf("record.md lacks the details:\n%s", md[:min(len(md), 2000)])
	}
}

// The comparison sets a measure beside itself only where the records
// define it alike: two definitions are refused, by Comparison and by
// Write before any page is written; a record that did not keep its
// definition is compared by name, its cell saying so.
func TestComparisonDefinitions(t *testing.T) {
	withLag := func(v float64, def string) *record.Record {
		r := load(t, "sampled")
		r.Experiments[0].Measures = []record.Measure{{Name: "lag", Title: "payment → ClickHouse", Unit: "s", Definition: def, Value: &v}}
		return r
	}
	a, b := withLag(4.1, "sha256:aaaaaaaaaaaa"), withLag(8.1, "sha256:bbbbbbbbbbbb")
	b.ID = "other"
	want := "measure lag of experiment 06 worker_recovery has two definitions: sha256:aaaaaaaaaaaa in a, sha256:bbbbbbbbbbbb in b; compare only runs of the same definition, or rename the measure"
	if _, err := Comparison([]*record.Record{a, b}, []string{"a", "b"}); err == nil || err.Error() != want {
		t.Errorf("comparison: %v\nwant %s", err, want)
	}
	dir := t.TempDir()
	files, err := Write(dir, []*record.Record{a, b})
	if err == nil || len(files) != 0 || !strings.Contains(err.Error(), "has two definitions: sha256:aaaaaaaaaaaa in "+a.ID+", sha256:bbbbbbbbbbbb in other;") {
		t.Errorf("publish: %v, wrote %v", err, files)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("publish wrote %d files before refusing", len(entries))
	}

	old := withLag(8.1, "")
	cmp, err := Comparison([]*record.Record{a, old}, []string{"a", "old"})
	if err != nil {
		t.Fatal(err)
	}
	page := string(cmp)
	for _, want := range []string{
		`<tr><td>measure</td><td>payment → ClickHouse</td><td title="definition sha256:aaaaaaaaaaaa">4.10 s</td><td title="definition not recorded (a record of an older labgen): compared by the measure&#39;s name alone">8.10 s</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the comparison lacks %s", want)
		}
	}
}

// A sweep aggregates a measure's runs only under one definition.
func TestSweepDefinitions(t *testing.T) {
	a, b := sweptRecord(t, 2, 5), sweptRecord(t, 9, 45)
	a.Experiments[0].Measures[0].Definition = "sha256:aaaaaaaaaaaa"
	b.Experiments[0].Measures[0].Definition = "sha256:bbbbbbbbbbbb"
	vs := []SweepVariant{
		{Name: "window-30s", Values: []string{"30s"}, Records: []*record.Record{a}},
		{Name: "window-60s", Values: []string{"60s"}, Records: []*record.Record{b}},
	}
	_, err := Sweep([]string{"window"}, vs, "", true)
	want := "measure lag of experiment 06 worker_recovery has two definitions: sha256:aaaaaaaaaaaa in window-30s, sha256:bbbbbbbbbbbb in window-60s; compare only runs of the same definition, or rename the measure"
	if err == nil || err.Error() != want {
		t.Errorf("sweep: %v\nwant %s", err, want)
	}
	b.Experiments[0].Measures[0].Definition = a.Experiments[0].Measures[0].Definition
	page, err := Sweep([]string{"window"}, vs, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<td title="definition sha256:aaaaaaaaaaaa">payment → ClickHouse</td>`) {
		t.Error("the sweep page does not name the measure's definition")
	}
}
