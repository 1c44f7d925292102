package record

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// recoveryExp stops and starts taskmanager and waits for the job to run;
// old has the service steps as records before Ran.Action and Ran.Service
// had them (the command only).
func recoveryExp(old bool) *Experiment {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ran := func(action string) *Ran {
		if old {
			return &Ran{What: "compose", Command: "docker compose -f compose.yaml " + action + " taskmanager"}
		}
		// A face whose command names the service differently: the fields
		// are what counts.
		return &Ran{What: "compose", Command: "labgen native " + action + " tm-1", Action: action, Service: "taskmanager"}
	}
	return &Experiment{Name: "worker_recovery", Number: 6, Title: "Recover", Status: ExpDone, Total: 4, Steps: []*Step{
		{Name: "stop", Kind: "compose", Status: StatusOK, Started: at(0), DurationMS: 5500, Ran: ran("stop")},
		{Name: "start", Kind: "compose", Status: StatusOK, Started: at(30), DurationMS: 5100, Ran: ran("start")},
		{Name: "recovered", Kind: "wait", Status: StatusOK, Started: at(35.15), DurationMS: 9700,
			Ran:     &Ran{What: "wait", Detail: "Re-ran step `during` every 1s until `result.state == \"RUNNING\"` held, for at most 3m0s."},
			Sampled: "step `during` every 1s until the condition held: `state = result.state`",
			Samples: []Sample{
				{At: at(35.2), MS: 50, Values: map[string]json.RawMessage{"state": json.RawMessage(`"RESTARTING"`)}},
				{At: at(44.9), MS: 9700, Values: map[string]json.RawMessage{"state": json.RawMessage(`"RUNNING"`)}},
			},
			Captures: []Capture{{Name: "running_after_start_ms", Expr: "samples[length(samples) - 1].ms", Value: json.RawMessage(`9700`), Display: "9700"}}},
	}}
}

func TestRecovery(t *testing.T) {
	for _, old := range []bool{false, true} {
		rec := Recovery(recoveryExp(old))
		if rec == nil || !rec.Recovers || rec.Service != "taskmanager" || rec.Held != "recovered" {
			t.Fatalf("old %v: %+v", old, rec)
		}
		if rec.ToRunning() != 44900*time.Millisecond || rec.AfterStart() != 14900*time.Millisecond || rec.AfterUp() != 9800*time.Millisecond {
			t.Errorf("old %v: to running %v, after the start %v, after up %v", old, rec.ToRunning(), rec.AfterStart(), rec.AfterUp())
		}
		text := rec.Markdown()
		for _, want := range []string{"**44.9 s after the stop**", "14.9 s after the start", "9.8 s after the service was up", "up 5.1 s later", RecoveryDefinition} {
			if !strings.Contains(text, want) {
				t.Errorf("old %v: the recovery says\n%s\nwithout %q", old, text, want)
			}
		}
	}
	// The fields win over the command: a command whose last words are not
	// the action and the service is not parsed.
	e := recoveryExp(false)
	e.Steps[0].Ran.Command = "supervisorctl stop flink:tm"
	if rec := Recovery(e); rec == nil || rec.Service != "taskmanager" {
		t.Errorf("the command was read instead of Ran.Action and Ran.Service: %+v", rec)
	}
	// A restart is a stop and a start in one step.
	e = recoveryExp(false)
	e.Steps = append([]*Step{{Name: "restart", Kind: "compose", Status: StatusOK, Started: t0.Add(30 * time.Second), DurationMS: 5100,
		Ran: &Ran{What: "compose", Action: "restart", Service: "taskmanager"}}}, e.Steps[2:]...)
	if rec := Recovery(e); rec == nil || !rec.Recovers || rec.ToRunning() != rec.AfterStart() {
		t.Errorf("restart: %+v", rec)
	}
	// A record from before samples: the wait held when it ended.
	e = recoveryExp(true)
	e.Steps[2].Samples, e.Steps[2].Sampled = nil, ""
	if rec := Recovery(e); rec == nil || !rec.Recovers || rec.Running != e.Steps[2].Started.Add(9700*time.Millisecond) {
		t.Errorf("without samples: %+v", rec)
	}
	if Recovery(&Experiment{Steps: []*Step{{Name: "q", Kind: "query", Status: StatusOK}}}).Markdown() != "" {
		t.Error("an experiment without a stop has a recovery")
	}
	// The producer stopped and started again with only queries after it
	// (the seed lab's experiment 05): no job was probed, so nothing
	// recovered and there is no line to print.
	e = &Experiment{Steps: []*Step{
		{Name: "stop", Kind: "compose", Status: StatusOK, Started: t0, Ran: &Ran{What: "compose", Action: "stop", Service: "producer"}},
		{Name: "count", Kind: "query", Status: StatusOK, Started: t0.Add(time.Second)},
		{Name: "start", Kind: "compose", Status: StatusOK, Started: t0.Add(2 * time.Second), Ran: &Ran{What: "compose", Action: "start", Service: "producer"}},
		{Name: "count_again", Kind: "query", Status: StatusOK, Started: t0.Add(3 * time.Second)},
	}}
	if rec := Recovery(e); rec == nil || rec.Probed || rec.Markdown() != "" {
		t.Errorf("a stopped producer with no job probed after it prints a recovery: %+v %q", rec, rec.Markdown())
	}
	// With a flink step after the start that never saw RUNNING, the line
	// says so.
	e.Steps = append(e.Steps, &Step{Name: "jobs", Kind: "flink", Status: StatusOK, Started: t0.Add(4 * time.Second)})
	if rec := Recovery(e); !strings.Contains(rec.Markdown(), "no probe after the start saw the job running") {
		t.Errorf("a probed job that never ran again: %q", rec.Markdown())
	}
}

// record.md prints the recovery in the experiment, in the words of
// (*Interruption).Markdown, which the page renders too.
func TestMarkdownRecovery(t *testing.T) {
	r := sample()
	r.Experiments = []*Experiment{recoveryExp(false)}
	md := string(Markdown(r))
	want := Recovery(r.Experiments[0]).Markdown()
	if !strings.Contains(md, "## 06 Recover\n\n"+want+"\n") {
		t.Errorf("record.md lacks the recovery paragraph %q:\n%s", want, md)
	}
	// The lab's own capture stays what it is; the paragraph says what
	// the figures measure from.
	if !strings.Contains(md, "- Captured `running_after_start_ms` = `9700`") {
		t.Error("record.md lost the capture")
	}
}

func TestFigures(t *testing.T) {
	e := recoveryExp(false)
	e.Steps[2].Captures = append(e.Steps[2].Captures, Capture{Name: "order_id", Expr: "result.rows[0].order_id", Value: json.RawMessage(`489`), Display: "489"})
	got := map[string]string{}
	for _, f := range Figures(e) {
		got[f.Key] = f.Text
	}
	want := map[string]string{
		"recovery/stop": "44.9 s", "recovery/start": "14.9 s", "recovery/up": "9.8 s",
		"wait/recovered": "held after 9.7 s", "capture/recovered/running_after_start_ms": "9700",
		"duration/stop": "5.5 s", "status/stop": "ok",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("figure %s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["capture/recovered/order_id"]; ok {
		t.Error("an identifier is a figure")
	}
	if _, ok := got["duration/recovered"]; ok {
		t.Error("a wait's duration is a figure beside its time to hold")
	}
}
