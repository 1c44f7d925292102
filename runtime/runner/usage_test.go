package runner

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// thisGroup answers for one service, the test's own process group, from
// /proc as the native stack's client does.
type thisGroup struct{ services }

type services struct{}

func (services) Service(context.Context, string, string) (string, error) { return "", nil }
func (services) Command(...string) string                                { return "" }

func (thisGroup) ServiceUsage() (map[string]time.Duration, map[string]int64, error) {
	u := native.GroupUsage(syscall.Getpgrp())
	return map[string]time.Duration{"tests": u.CPU}, map[string]int64{"tests": u.RSS}, nil
}

func TestUsageStep(t *testing.T) {
	// Spend some CPU, so that the group's CPU time cannot read 0.
	for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
	}
	s := &schemas.Step{Name: "cpu", Kind: schemas.StepUsage, Usage: &schemas.UsageStep{}}
	r := &Runner{opt: Options{Compose: thisGroup{}}, now: time.Now}
	out := r.runUsage(context.Background(), s)
	if out.err != nil {
		t.Fatal(out.err)
	}
	cpu := out.value.GetAttr("cpu_s").GetAttr("tests")
	if f, _ := cpu.AsBigFloat().Float64(); f <= 0 {
		t.Errorf("CPU time %v", f)
	}
	if mb := out.value.GetAttr("rss_mb").GetAttr("tests"); mb.LessThanOrEqualTo(cty.NumberIntVal(0)).True() {
		t.Errorf("memory %v MiB", mb.GoString())
	}
	if rows := out.output.Tables[0].Rows; len(rows) != 1 || rows[0][0] != "tests" || !strings.HasSuffix(rows[0][1], " s") {
		t.Errorf("table: %+v", rows)
	}
	if got := defaultSample(schemas.StepUsage, out.value); got["cpu_s"] == cty.NilVal {
		t.Errorf("a sampling wait keeps no cpu_s: %v", got)
	}

	// Services lists some: the others are left out.
	only := &schemas.Step{Name: "cpu", Kind: schemas.StepUsage, Usage: &schemas.UsageStep{Services: []string{"mysql"}}}
	if out := r.runUsage(context.Background(), only); out.err != nil || out.value.GetAttr("cpu_s").LengthInt() != 0 {
		t.Errorf("services = [mysql]: %v, %v", out.value.GoString(), out.err)
	}

	// A face whose processes labgen cannot see fails the step, saying so;
	// in an experiment the step is skipped for that reason, not an error
	// of the lab or the pipeline.
	r.opt.Compose = services{}
	if out := r.runUsage(context.Background(), s); out.err == nil || !strings.Contains(out.err.Error(), "--native") {
		t.Errorf("compose's face: %v", out.err)
	}
	e := &schemas.Experiment{Name: "load", Steps: []*schemas.Step{s}}
	r.lab, r.caps, r.missing = &schemas.Lab{Experiments: []*schemas.Experiment{e}}, schemas.Captures{}, map[string]string{}
	rs := r.stepOrSkip(context.Background(), e, s, "")
	if rs.Status != record.StatusSkipped || !strings.Contains(rs.Skipped, "--native") {
		t.Errorf("a usage step on compose's face: %s %q %q", rs.Status, rs.Skipped, rs.Error)
	}
}

// TestFlinkValueBackpressure: the job's backpressure is its most blocked
// vertex's and its worst level; null when no vertex was measured.
func TestFlinkValueBackpressure(t *testing.T) {
	st := &flinkapi.Status{Name: "j", State: "RUNNING", Vertices: []flinkapi.VertexStatus{
		{Name: "Source", Backpressure: &flinkapi.Backpressure{Level: "low", Ratio: 0.3, Busy: 0.1, Idle: 0.6}},
		{Name: "Join", Backpressure: &flinkapi.Backpressure{Level: "ok", Ratio: 0, Busy: 0.7, Idle: 0.3}},
		{Name: "Sink"},
	}}
	bp := flinkValue(st, nil).GetAttr("backpressure")
	if bp.GetAttr("max").Equals(cty.NumberFloatVal(0.3)).False() || bp.GetAttr("busy_max").Equals(cty.NumberFloatVal(0.7)).False() ||
		bp.GetAttr("level").AsString() != "low" {
		t.Errorf("backpressure %s", bp.GoString())
	}
	if v := flinkValue(st, nil).GetAttr("vertices").Index(cty.NumberIntVal(2)); !v.GetAttr("backpressure").IsNull() || !v.GetAttr("backpressure_level").IsNull() {
		t.Errorf("an unmeasured vertex: %s", v.GoString())
	}
	st.Vertices = st.Vertices[2:]
	if bp := flinkValue(st, nil).GetAttr("backpressure"); !bp.GetAttr("max").IsNull() || !bp.GetAttr("level").IsNull() {
		t.Errorf("nothing measured: %s", bp.GoString())
	}
	got := defaultSample(schemas.StepFlink, flinkValue(&flinkapi.Status{Vertices: []flinkapi.VertexStatus{
		{Name: "Join", Backpressure: &flinkapi.Backpressure{Level: "high", Ratio: 0.9, Busy: 0.1}}}}, nil))
	if got["backpressure"] == cty.NilVal || got["busy"] == cty.NilVal {
		t.Errorf("samples keep no backpressure: %v", got)
	}
}

// TestRestartsInExperiment: a job's restarts count from the experiment's
// start (its base, by job ID); a job submitted since has none, so all of
// its restarts are the experiment's.
func TestRestartsInExperiment(t *testing.T) {
	base := map[string]int64{"a1": 1}
	for _, c := range []struct {
		id   string
		want int64
	}{{"a1", 2}, {"b2", 3}} {
		v := flinkValue(&flinkapi.Status{JobID: c.id, Restarts: 3}, base)
		if got, _ := v.GetAttr("restarts_in_experiment").AsBigFloat().Int64(); got != c.want || !v.GetAttr("restarts").Equals(cty.NumberIntVal(3)).True() {
			t.Errorf("job %s: restarts_in_experiment %d, want %d (restarts %s)", c.id, got, c.want, v.GetAttr("restarts").GoString())
		}
	}
}
