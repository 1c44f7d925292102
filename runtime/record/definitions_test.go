package record

import (
	"encoding/json"
	"errors"
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

// record diff of two older records compares the measures by name and
// says, per measure, that the definition is not recorded; against a
// record that kept one, it says which.
func TestDiffDefinitionNotRecorded(t *testing.T) {
	a, b := readOld(t, oldRecordA), readOld(t, oldRecordB)
	ds, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := FormatDiff(ds)
	for _, want := range []string{
		"03 delayed_payment: measure “payment_to_clickhouse”: 1.62 s → 3.58 s\n",
		"03 delayed_payment: measure “payment_to_clickhouse” definition: not recorded in both\n",
		"01 baseline: measure “serving_lag” definition: not recorded in both\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the diff lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "expression") {
		t.Errorf("the diff reports an expression that did not change:\n%s", got)
	}

	// b as a newer labgen records it.
	measureOf(b, "delayed_payment", "payment_to_clickhouse").Definition = "sha256:0123456789ab"
	measureOf(b, "delayed_payment", "payment_to_clickhouse").Expr = "step.wait_for_join.took_ms / 1000"
	ds, err = Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got = FormatDiff(ds)
	for _, want := range []string{
		"03 delayed_payment: measure “payment_to_clickhouse” definition: not recorded → sha256:0123456789ab\n",
		"03 delayed_payment: measure “payment_to_clickhouse” expression: seconds_between(step.paid_row.updated_at, step.paid_row.arrived_at) → step.wait_for_join.took_ms / 1000\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the diff lacks %q:\n%s", want, got)
		}
	}
}

// Two definitions of one measure are not set side by side: record diff
// refuses, naming the measure, both definitions and which record holds
// which.
func TestDiffRefusesTwoDefinitions(t *testing.T) {
	a, b := readOld(t, oldRecordA), readOld(t, oldRecordB)
	measureOf(a, "delayed_payment", "payment_to_clickhouse").Definition = "sha256:aaaaaaaaaaaa"
	measureOf(b, "delayed_payment", "payment_to_clickhouse").Definition = "sha256:bbbbbbbbbbbb"
	ds, err := Diff(a, b)
	var de *DefinitionError
	if !errors.As(err, &de) || ds != nil {
		t.Fatalf("diff: %v, %v; want a *DefinitionError and nothing compared", ds, err)
	}
	want := "measure payment_to_clickhouse of experiment 03 delayed_payment has two definitions: sha256:aaaaaaaaaaaa in 20261206-064842-b9df, sha256:bbbbbbbbbbbb in 20261206-074946-6b7e; compare only runs of the same definition, or rename the measure"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	// The same definition in both: compared, without a note.
	measureOf(b, "delayed_payment", "payment_to_clickhouse").Definition = "sha256:aaaaaaaaaaaa"
	ds, err = Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatDiff(ds); strings.Contains(got, "“payment_to_clickhouse” definition") || !strings.Contains(got, "measure “payment_to_clickhouse”: 1.62 s → 3.58 s") {
		t.Errorf("one definition:\n%s", got)
	}
}

// CheckDefinitions names every definition and all its holders; a holder
// that recorded none does not count.
func TestCheckDefinitions(t *testing.T) {
	use := func(holder, def string) MeasureUse {
		return MeasureUse{Holder: holder, Experiment: "07 load", Measure: "lag_p95", Definition: def}
	}
	if err := CheckDefinitions([]MeasureUse{use("a", "sha256:1"), use("b", ""), use("c", "sha256:1")}); err != nil {
		t.Errorf("one definition and an unrecorded one: %v", err)
	}
	err := CheckDefinitions([]MeasureUse{use("a", "sha256:1"), use("b", "sha256:2"), use("c", "sha256:1"), use("d", "sha256:3"), use("e", "sha256:1")})
	want := "measure lag_p95 of experiment 07 load has 3 definitions: sha256:1 in a, c and e, sha256:2 in b, sha256:3 in d; compare only runs of the same definition, or rename the measure"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// One name in two experiments is two measures.
	other := use("b", "sha256:2")
	other.Experiment = "01 baseline"
	if err := CheckDefinitions([]MeasureUse{use("a", "sha256:1"), other}); err != nil {
		t.Errorf("measures of two experiments: %v", err)
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
