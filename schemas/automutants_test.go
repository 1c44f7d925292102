package schemas

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// testdata/mutants/bikes.json is prove/flink/prove-flink.sh --mutants on
// the tutorial lab's rendered sql/flink/trips.sql, as Flink 1.20.1's
// parser derived it.
func TestAutoMutantsOfTheBikesLab(t *testing.T) {
	f, err := os.Open("testdata/mutants/bikes.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, skipped, err := ReadAutoMutants(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 21 || len(skipped) != 1 || !strings.HasPrefix(skipped[0], "trips/append_only_sink:trips: ") {
		t.Fatalf("%d mutants, skipped %q; want 21 and the append-only sink", len(ms), skipped)
	}
	rider := ms[slices.IndexFunc(ms, func(m AutoMutant) bool { return m.Name == "null_column:rider" })]
	if rider.ControlName() != "trips/null_column:rider" || !strings.HasPrefix(rider.Statement, "INSERT INTO `trips`") ||
		!strings.Contains(rider.Select, "CAST(NULL AS") || strings.Contains(rider.Base, "CAST(NULL AS") {
		t.Errorf("null_column:rider: %+v", rider)
	}

	lab, diags := NewParser().Load("../docs/tutorial/bikes", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	measuring, sanity := 0, 0
	before := map[*Expect]int{}
	for _, e := range lab.Experiments {
		for _, s := range e.Steps {
			for _, x := range s.Expects {
				before[x] = len(x.Detects)
			}
		}
	}
	if err := lab.AddAutoMutants(ms); err != nil {
		t.Fatal(err)
	}
	for x, n := range before {
		switch {
		case n == 0 && len(x.Detects) != 0:
			t.Errorf("%q names no control and was given the mutants", x.Message)
		case n == 0:
			sanity++
		case len(x.Detects) != n+21 || !slices.Contains(x.Detects, "trips/lose_keys"):
			t.Errorf("%q names %d controls, want its %d and the 21 mutants", x.Message, len(x.Detects), n)
		default:
			measuring++
		}
	}
	if measuring == 0 {
		t.Error("no measuring expectation")
	}
	c := lab.Control("trips/duplicate_output")
	if c == nil || c.Kind() != ControlAutoMutant || c.Mutant == nil || c.Mutant.Name != "trips" || !strings.Contains(c.Mutant.Query, "UNION ALL") {
		t.Fatalf("trips/duplicate_output: %+v", c)
	}
	if got := lab.Job("trips").Query; strings.Contains(got, "UNION ALL") {
		t.Error("the job's own query was changed")
	}
	if err := lab.AddAutoMutants(ms[:1]); err == nil || !strings.Contains(err.Error(), "a control of that name already") {
		t.Errorf("a mutant added twice: %v", err)
	}
	other := ms[0]
	other.Job = "nope"
	if err := lab.AddAutoMutants([]AutoMutant{other}); err == nil || !strings.Contains(err.Error(), `no streaming job "nope"`) {
		t.Errorf("a mutant of a job the lab lacks: %v", err)
	}
	t.Logf("%d measuring expectations given the mutants, %d left alone", measuring, sanity)
}

func TestReadAutoMutantsRefusesGarbage(t *testing.T) {
	if _, _, err := ReadAutoMutants(strings.NewReader(`{"job": "x", "mutants": [`)); err == nil {
		t.Error("a cut document was read")
	}
	ms, skipped, err := ReadAutoMutants(strings.NewReader(`{"job": "", "mutants": []} {"job": "j", "mutants": [{"name": "a", "equivalent": true, "equivalent_reason": "insert-only input", "sql": "INSERT INTO t SELECT 1"}]}`))
	if err != nil || len(ms) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0], "equivalent (insert-only input)") {
		t.Errorf("%v %q %v", ms, skipped, err)
	}
}

// testdata/mutants/sensors.json is prove-flink.sh --mutants on the
// sensors lab's three streaming jobs. Each mutant is aimed only at the
// experiments that read what its job writes, downstream jobs included.
// Without SeesJob each would be aimed at all four measuring experiments.
func TestAutoMutantsAimedAtTheExperimentsThatSeeThem(t *testing.T) {
	f, err := os.Open("testdata/mutants/sensors.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, _, err := ReadAutoMutants(f)
	if err != nil {
		t.Fatal(err)
	}
	lab, diags := NewParser().Load("../labs/sensors", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := lab.DownstreamOf("deliveries"); !slices.Equal(d.Jobs, []string{"deliveries", "delivery_summary"}) ||
		!slices.Contains(d.Names, "deliveries") || !slices.Contains(d.Names, "delivery_summary") || slices.Contains(d.Names, "device_window") {
		t.Errorf("downstream of deliveries: %+v", d)
	}
	if err := lab.AddAutoMutants(ms); err != nil {
		t.Fatal(err)
	}
	aimed := map[string][]string{} // job → experiments
	for _, e := range lab.Experiments {
		for _, c := range e.Controls(lab) {
			if c.Auto != nil && !slices.Contains(aimed[c.Auto.Job], e.Name) {
				aimed[c.Auto.Job] = append(aimed[c.Auto.Job], e.Name)
			}
		}
	}
	// Experiment 01 runs the smoke checks and shows every job; 05 reads
	// delivery_summary, which reads the deliveries topic, but asks its
	// expectations nothing a control could change (sanity checks all).
	want := map[string][]string{
		"device_window": {"baseline", "window_closes"},
		"site_heat":     {"baseline", "aggregate_changes"},
		"deliveries":    {"baseline", "late_receipts"},
	}
	for job, exps := range want {
		if !slices.Equal(aimed[job], exps) {
			t.Errorf("mutants of %s aimed at %q, want %q", job, aimed[job], exps)
		}
	}
}
