package publish

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// A record's measures are its findings: a table at the top of the page
// and of record.md, and rows of the comparison of two records.
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
	for _, want := range []string{`<section class="findings" id="findings">`, "payment → ClickHouse", "<strong>4.10 s</strong>", "not measured: step.x.y was not captured"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, `id="findings"`) > strings.Index(page, `id="provenance"`) {
		t.Error("the findings are not at the top of the page")
	}
	md := string(record.Markdown(r))
	if !strings.Contains(md, "## Findings") || !strings.Contains(md, "| payment → ClickHouse") || !strings.Contains(md, "4.10 s") {
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
	if want := `<td title="definition sha256:0123456789ab"><strong>4.10 s</strong> (n = 1, resolution 1 s)</td>`; !strings.Contains(string(b), want) {
		t.Errorf("the page lacks %s", want)
	}
	if md := string(record.Markdown(r)); !strings.Contains(md, "4.10 s (n = 1, resolution 1 s)") {
		t.Errorf("record.md lacks the details:\n%s", md[:min(len(md), 2000)])
	}
}
