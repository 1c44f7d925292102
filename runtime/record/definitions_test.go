package record

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Two committed records of the seed lab (CI's runs on the native stack),
// written before records kept a measure's definition.
const (
	oldRecordA = "../../docs/records/orders/20261206-064842-b9df"
	oldRecordB = "../../docs/records/orders/20261206-074946-6b7e"
)

func readOld(t *testing.T, dir string) *Record {
	t.Helper()
	r, err := Read(filepath.Join(dir, JSONName))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func measureOf(r *Record, exp, name string) *Measure {
	e := r.Experiment(exp)
	if e == nil {
		return nil
	}
	for i := range e.Measures {
		if e.Measures[i].Name == name {
			return &e.Measures[i]
		}
	}
	return nil
}

// A record written before labgen kept definitions loads, its measures
// without one, shown as before.
func TestOldRecordMeasures(t *testing.T) {
	r := readOld(t, oldRecordB)
	m := measureOf(r, "delayed_payment", "payment_to_clickhouse")
	if m == nil || m.Value == nil {
		t.Fatal("the record has no payment_to_clickhouse")
	}
	if m.Definition != "" || m.Samples != nil || m.WindowS != nil || m.ResolutionS != nil || m.Missing != nil {
		t.Errorf("an older record's measure has %+v", m)
	}
	if got := m.Text(); got != "3.58 s" {
		t.Errorf("shown as %q, want 3.58 s", got)
	}
	// A measure without them writes none of the new fields.
	b, _ := json.Marshal(Measure{Name: "lag", Title: "lag", Expr: "step.a.b"})
	for _, k := range []string{"definition", "samples", "window_s", "resolution_s", "missing"} {
		if strings.Contains(string(b), `"`+k+`"`) {
			t.Errorf("a measure without %s writes it: %s", k, b)
		}
	}
}

// What a measure summarises is shown beside its value.
func TestMeasureDetails(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		m    Measure
		want string
	}{
		{Measure{Value: f(4.1), Unit: "s", Samples: n(1), ResolutionS: f(1)}, "4.10 s (n = 1, resolution 1 s)"},
		{Measure{Value: f(7.603), Unit: "s", Samples: n(212), WindowS: f(30.214)}, "7.60 s (n = 212, over 30.2 s)"},
		{Measure{Value: f(3.577), Unit: "s", Samples: n(1), ResolutionS: f(0.001)}, "3.58 s (n = 1, resolution 1 ms)"},
		{Measure{Value: f(12.2), Unit: "% of a core", WindowS: f(150)}, "12.2 % of a core (over 150 s)"},
		{Measure{Value: f(5), Samples: n(0), Missing: map[string]string{"window": "step.x.window_s was not captured"}}, "5.00 (n = 0, window not known)"},
		{Measure{Error: "step.x.y was not captured", Samples: n(3)}, "not measured: step.x.y was not captured"},
	} {
		if got := c.m.Text(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}
