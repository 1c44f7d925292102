package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/labgen/labgen/schemas"
)

// RecoveryDefinition is how the record measures a recovery; record.md and
// the published page both state the figures Recovery computes, in the
// words of (*Interruption).Markdown.
const RecoveryDefinition = "The stop and the start are the moments labgen issued them (the service steps' starts); " +
	"the service was up when its start step ended. The job counts as running again when the first wait … until after " +
	"the start held (its last run), else at the first sample after the start whose state is RUNNING. " +
	"These are the times the probes saw, at their sampling interval; they are not a proof of exactly-once processing."

// Interruption is what a record shows of a service stopped and started
// again while a job's state was sampled: the measured recovery.
type Interruption struct {
	Service string
	// Stopped and Started are when the stop and the start were issued; Up
	// is when the start step ended (the service reported started).
	Stopped, Started, Up time.Time
	// HasStart: the service was started again after its stop.
	HasStart bool
	// Recovers: a probe after the start saw the job running, at Running.
	Recovers bool
	Running  time.Time
	// Held names the wait step whose condition marked Running, if any.
	Held string
	// Probed: a step after the start asked a job's state (a flink step
	// or a sample with a state). Without one there is no recovery to
	// speak of: the service stopped may feed no job (the producer).
	Probed bool
}

// ToRunning is from the stop to running again.
func (r *Interruption) ToRunning() time.Duration { return r.Running.Sub(r.Stopped) }

// AfterStart is from the start to running again.
func (r *Interruption) AfterStart() time.Duration { return r.Running.Sub(r.Started) }

// AfterUp is from the service being up to running again.
func (r *Interruption) AfterUp() time.Duration { return r.Running.Sub(r.Up) }

// StartTook is how long the start step took until the service was up.
func (r *Interruption) StartTook() time.Duration { return r.Up.Sub(r.Started) }

// Seconds shows a measured duration as the record and the page do.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// Markdown is the measured recovery in one paragraph, the same words in
// record.md and on the page (which renders it); empty when there is
// nothing to say (no stop, or no start after it).
func (r *Interruption) Markdown() string {
	if r == nil || !r.HasStart {
		return ""
	}
	if !r.Recovers {
		if !r.Probed {
			return ""
		}
		return fmt.Sprintf("**Measured recovery.** The service `%s` was stopped and started again, but no probe after the start saw the job running.", r.Service)
	}
	held := ""
	if r.Held != "" {
		held = fmt.Sprintf(" (the condition of step `%s` held)", r.Held)
	}
	return fmt.Sprintf("**Measured recovery.** The service `%s` was stopped at %s and started at %s, up %s later; "+
		"the job counted as running again at %s%s: **%s after the stop**, %s after the start, %s after the service was up. %s",
		r.Service, stamp(r.Stopped), stamp(r.Started), Seconds(r.StartTook()), stamp(r.Running), held,
		Seconds(r.ToRunning()), Seconds(r.AfterStart()), Seconds(r.AfterUp()), RecoveryDefinition)
}

// ServiceAction is a service step's action (stop, start, restart) and the
// service it acted on: Ran.Action and Ran.Service, or for records written
// before those existed, the last two words of the command ("docker compose
// … stop taskmanager").
func ServiceAction(s *Step) (action, service string) {
	if s.Kind != schemas.StepCompose || s.Ran == nil {
		return "", ""
	}
	if s.Ran.Action != "" || s.Ran.Service != "" {
		return s.Ran.Action, s.Ran.Service
	}
	f := strings.Fields(s.Ran.Command)
	if len(f) < 2 {
		return "", ""
	}
	return f[len(f)-2], f[len(f)-1]
}

// WaitedUntil tells whether a step is a wait … until (re-run until a
// condition held), not a wait for a duration. The record keeps no field for
// it: the runner's words for it say it ("… until the condition held",
// "Re-ran step … until `…` held").
func (s *Step) WaitedUntil() bool {
	return s.Kind == schemas.StepWait && (strings.Contains(s.Sampled, "until the condition held") ||
		s.Ran != nil && strings.Contains(s.Ran.Detail, " until `"))
}

// Recovery measures an experiment's first service interruption: the
// first stop, the first start (or restart) of that service after it, and
// the first moment after the start that the job counted as running again
// (see RecoveryDefinition). It is nil when no service step stopped one.
func Recovery(e *Experiment) *Interruption {
	var rec *Interruption
	for i, s := range e.Steps {
		if s.Status != StatusOK {
			continue
		}
		action, svc := ServiceAction(s)
		switch {
		case action == "stop" && rec == nil:
			rec = &Interruption{Service: svc, Stopped: s.Started}
		case action == "restart" && rec == nil:
			// A restart stops and starts in one step.
			rec = &Interruption{Service: svc, Stopped: s.Started}
			fallthrough
		case action == "start" && rec != nil && svc == rec.Service && !rec.HasStart:
			rec.Started, rec.HasStart = s.Started, true
			rec.Up = s.Started.Add(time.Duration(s.DurationMS) * time.Millisecond)
			rec.Running, rec.Held, rec.Recovers = runningAfter(e.Steps[i+1:])
			rec.Probed = rec.Recovers || probesJob(e.Steps[i+1:])
		}
	}
	return rec
}

// runningAfter finds when the job counted as running in the steps after a
// start: the last run of the first wait … until that held (its last
// sample; the step's end in records from before samples), else the first
// sample whose state is RUNNING.
func runningAfter(steps []*Step) (time.Time, string, bool) {
	for _, w := range steps {
		if !w.WaitedUntil() || w.Status != StatusOK {
			continue
		}
		if n := len(w.Samples); n > 0 {
			return w.Samples[n-1].At, w.Name, true
		}
		return w.Started.Add(time.Duration(w.DurationMS) * time.Millisecond), w.Name, true
	}
	for _, w := range steps {
		for _, sm := range w.Samples {
			if string(sm.Values["state"]) == `"RUNNING"` {
				return sm.At, "", true
			}
		}
	}
	return time.Time{}, "", false
}

// probesJob tells whether any of the steps asked a Flink job's state.
func probesJob(steps []*Step) bool {
	for _, s := range steps {
		if s.Kind == schemas.StepFlink {
			return true
		}
		for _, sm := range s.Samples {
			if _, ok := sm.Values["state"]; ok {
				return true
			}
		}
	}
	return false
}
