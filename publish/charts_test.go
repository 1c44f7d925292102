package publish

import (
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// The seed record's page charts only quantities a reader asks about:
// not the rows a pick query returned nor a job's counters sampled by
// their kind's defaults, not a value that changed once (checkpoints 21 →
// 22, one order's count 0 → 1: told in words), and a checkpoint's size in
// MiB as the Findings show it. No line crosses a time nothing sampled.
func TestSeedCharts(t *testing.T) {
	r, err := record.Read(seedRecord)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	notes := map[string]string{}
	for _, e := range r.Experiments {
		charts, ns, err := experimentCharts(e, record.Recovery(e))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range charts {
			titles = append(titles, c.Title)
		}
		for _, n := range ns {
			notes[n.Name] = n.Text
		}
	}
	want := []string{"rows over time", "restarts over time", "Time to running: 42.5 s after the stop (11.7 s after the start, 9.2 s after the service was up)", "state_size over time"}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("charts:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	for name, text := range map[string]string{
		"orders_served": "699 from 45.2 s, 702 from 53.3 s",
		"checkpoints":   "21 from 42.7 s, 22 from 48.8 s",
		"busy":          "0 % of time throughout (6 samples, 0.2 s–30.4 s)",
	} {
		if notes[name] != text {
			t.Errorf("note %s: %q, want %q", name, notes[name], text)
		}
	}

	e := r.Experiment("load")
	for _, s := range collect(e, experimentT0(e)) {
		if s.name == "state_size" && (s.unit != "MiB" || s.xy[0].Y > 1.1 || s.xy[0].Y < 0.9) {
			t.Errorf("state_size in %q: %v", s.unit, s.xy[0].Y)
		}
	}
	e = r.Experiment("worker_recovery")
	for _, s := range collect(e, experimentT0(e)) {
		if s.name == "rows / mysql_orders" {
			// Sampled before, during and after the stop, by three steps:
			// three lines, none across the stop.
			if b := s.breaks(); len(b) != 2 {
				t.Errorf("mysql_orders breaks at %v, want 2 breaks", b)
			}
		}
	}
}
