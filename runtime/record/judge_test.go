package record

import (
	"path/filepath"
	"testing"
)

// TestJudgeOnRecordedRuns judges again the verdicts of committed records
// (runs of the real labs with --controls, before this rule): a step that
// was skipped, failed or returned nothing under the control, or a
// condition that could not be evaluated there, is never "shown able to
// fail"; a condition false on rows that exist still is.
func TestJudgeOnRecordedRuns(t *testing.T) {
	want := map[string]map[string]string{
		"../../docs/records/orders/20261202-084809-3673": {
			"baseline/caught_up/0":            VerdictAbleToFail,   // timed out, on a count that exists
			"trace_one_order/served/0":        VerdictNotCheckable, // timed out with no row
			"trace_one_order/kafka/0":         VerdictNotCheckable, // no message
			"delayed_payment/wait_for_join/0": VerdictNotCheckable,
			"hourly_summary/category/1":       VerdictAbleToFail,
			"worker_recovery/after/0":         VerdictAbleToFail, // a job state that exists
		},
		"../../docs/records/sensors/20261201-200903-9dc0": {
			"window_closes/versions/0": VerdictNotCheckable, // skipped under the control
		},
	}
	for dir, cases := range want {
		rec, err := Read(filepath.Join(dir, "record.json"))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, v := range rec.Verdicts {
			if v.Control == "" {
				continue
			}
			var run *ControlRun
			for _, c := range rec.Controls {
				if c.Experiment == v.Experiment && c.Control == v.Control {
					run = c
				}
			}
			var healthy *Step
			if e := rec.Experiment(v.Experiment); e != nil {
				for _, s := range e.Steps {
					if s.Name == v.Step {
						healthy = s
					}
				}
			}
			_, verdict, _ := Judge(healthy, run, v.Step, v.Index)
			key := v.Experiment + "/" + v.Step + "/" + string(rune('0'+v.Index))
			got[key] = verdict
			if verdict != VerdictAbleToFail {
				continue
			}
			s := run.Step(v.Step)
			x := s.Expectations[v.Index]
			if s.Status == StatusSkipped || s.Status == StatusError || x.Error != "" || empty(s) {
				t.Errorf("%s %s: shown able to fail on a step %s (%q, counts %v)", dir, key, s.Status, x.Error, s.Counts)
			}
		}
		for k, w := range cases {
			if got[k] != w {
				t.Errorf("%s %s: %q, want %q", dir, k, got[k], w)
			}
		}
	}
}
