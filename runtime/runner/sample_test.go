package runner

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/compose"
	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

var updateSampled = flag.Bool("update-sampled", false, "rewrite publish/testdata/sampled/record.json from TestSampledRecovery")

// TestSampledRecovery samples a job recorded from Flink 1.20.1 around a
// TaskManager stop and start (stand-in docker): a wait that samples for a
// duration, and a wait … until that keeps its samples too. Every run is a
// sample with its time; the checkpoint and record counters grow
// monotonically, as they must within one job attempt; the capture over
// samples sees them.
func TestSampledRecovery(t *testing.T) {
	srv := flinktest.Replay(t, "flink-1.20.1/streaming.json")
	standInDocker(t)
	probe := &schemas.Step{Name: "probe", Kind: schemas.StepFlink, Flink: &schemas.FlinkStep{Job: "order_wide", Show: []string{"state", "checkpoints", "restarts"}}}
	sample := []*schemas.Capture{
		{Name: "state", Expr: x("result.state")},
		{Name: "checkpoints", Expr: x("result.checkpoints.completed")},
		{Name: "records_out", Expr: x(`{ for i, v in result.vertices : "vertex ${i + 1}" => v.records_out }`)},
	}
	l := &schemas.Lab{Name: "flinky", Title: "Sampled recovery", Seed: 1,
		Stack: &schemas.Stack{Flink: &schemas.Flink{Version: "1.20.1", Image: "flink:1.20.1-scala_2.12-java17"}},
		Jobs:  []*schemas.Job{{Name: "order_wide", Mode: schemas.ModeStreaming}},
		Experiments: []*schemas.Experiment{{Name: "worker_recovery", Number: 6, Title: "Recover from a controlled worker interruption",
			Intro: "Sample the job around a *TaskManager* stop and start.", Steps: []*schemas.Step{
				probe,
				{Name: "stop", Kind: schemas.StepCompose, Compose: &schemas.ComposeStep{Action: "stop", Service: "taskmanager"}},
				{Name: "observe", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Rerun: "probe", Duration: "1s", Interval: "200ms"}, Samples: sample,
					Expects: []*schemas.Expect{{Condition: x("length(samples) >= 3"), Message: "Several samples were kept."}}},
				{Name: "start", Kind: schemas.StepCompose, Compose: &schemas.ComposeStep{Action: "start", Service: "taskmanager"}},
				{Name: "recovered", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Rerun: "probe", Until: ptr(x(`result.state == "RUNNING" && result.checkpoints.completed >= 3 && result.vertices[0].records_out > 0`)), Interval: "200ms", Timeout: "1m"},
					Samples:  sample,
					Captures: []*schemas.Capture{{Name: "running_after_start_ms", Expr: x("samples[length(samples) - 1].ms")}}},
			}}},
	}
	lab := labdirtest.Load(t, l, map[string]string{"compose.yaml": "services: {}\n", "sql/flink/order_wide.sql": fixture(t, "streaming.sql")})
	c, err := compose.New(lab.Dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Lab: lab, Endpoints: labdir.Endpoints{Flink: srv.REST, Gateway: srv.Gateway}, Compose: c, SubmitJobs: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]*record.Step{}
	for _, s := range rec.Experiments[0].Steps {
		steps[s.Name] = s
		if s.Status != record.StatusOK {
			t.Errorf("step %s: %s %s", s.Name, s.Status, s.Error)
		}
		for _, e := range s.Expectations {
			if !e.Held {
				t.Errorf("step %s: %q not held (%s)", s.Name, e.Message, e.Error)
			}
		}
	}
	obs := steps["observe"]
	if len(obs.Samples) < 3 || len(obs.Samples) != obs.Attempts {
		t.Fatalf("observe: %d samples of %d runs", len(obs.Samples), obs.Attempts)
	}
	rcv := steps["recovered"]
	if len(rcv.Samples) == 0 || len(rcv.Samples) != rcv.Attempts {
		t.Fatalf("recovered: %d samples of %d runs", len(rcv.Samples), rcv.Attempts)
	}
	if c := rcv.Captures; len(c) != 1 || c[0].Error != "" || c[0].Display != jsonNum(rcv.Samples[len(rcv.Samples)-1].MS) {
		t.Errorf("capture over samples: %+v", c)
	}
	// Counters of one job attempt never go back: checkpoints and records
	// out per vertex, over both sampling steps in time order.
	last := map[string]float64{}
	for _, s := range []*record.Step{obs, rcv} {
		prev := int64(-1)
		for _, sm := range s.Samples {
			if sm.MS < prev || sm.Error != "" {
				t.Errorf("%s: sample %+v out of order or failed", s.Name, sm)
			}
			prev = sm.MS
		}
		for _, x := range s.Series() {
			if !x.Numeric {
				continue
			}
			for _, p := range x.Points {
				if p.Num == nil {
					continue
				}
				if v, ok := last[x.Name]; ok && *p.Num < v {
					t.Errorf("%s: %s went back from %v to %v", s.Name, x.Name, v, *p.Num)
				}
				last[x.Name] = *p.Num
			}
		}
	}
	if last["checkpoints"] < 3 || last["records_out / vertex 1"] <= 0 {
		t.Errorf("last values: %v", last)
	}
	md, _ := os.ReadFile(filepath.Join(r.Dir(), record.MarkdownName))
	if !strings.Contains(string(md), "Sampled step `probe` every 200ms for 1s") {
		t.Errorf("record.md does not show the samples:\n%s", md)
	}
	if *updateSampled {
		b, err := os.ReadFile(filepath.Join(r.Dir(), record.JSONName))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join("..", "..", "publish", "testdata", "sampled", record.JSONName)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }
