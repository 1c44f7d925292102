package record

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/labgen/labgen/schemas"
)

// Kinds of Figure.
const (
	FigureMeasure  = "measure"
	FigureRecovery = "recovery"
	FigureWait     = "wait"
	FigureCapture  = "capture"
	FigureCount    = "count"
	FigureDuration = "duration"
	FigureStatus   = "status"
)

// Figure is one thing an experiment measured, keyed so that the same
// figure of another record of the lab lines up with it.
type Figure struct {
	Kind string
	// Key identifies the figure within its experiment, across records.
	Key string
	// Step is the step it is of ("" for the experiment's recovery); What
	// says what it is.
	Step, What string
	// Value is the figure as a number (seconds, a count), when it is one;
	// Text is the figure as shown.
	Value   float64
	Numeric bool
	Text    string
	// Definition is a measure's (FigureMeasure): "" when the record did
	// not keep it.
	Definition string
}

// Figures are what an experiment measured, in step order: its recovery
// (Recovery's figures), how long each wait … until took to hold ("held
// after 9.7 s"), each numeric capture that is not an identifier, each
// count, each step's status and each duration but a wait's. Identifiers
// are never figures.
func Figures(e *Experiment) []Figure {
	var out []Figure
	for _, m := range e.Measures {
		f := Figure{Kind: FigureMeasure, Key: "measure/" + m.Name, What: m.Title, Text: m.Text(), Definition: m.Definition}
		if m.Value != nil {
			f.Value, f.Numeric = *m.Value, true
		}
		out = append(out, f)
	}
	sec := func(d time.Duration) (float64, string) { return d.Seconds(), Seconds(d) }
	if rec := Recovery(e); rec != nil && rec.HasStart {
		svc := rec.Service
		if !rec.Recovers {
			out = append(out, Figure{Kind: FigureRecovery, Key: "recovery/stop", What: "running again after " + svc + " stopped", Text: "not seen running"})
		} else {
			for _, f := range []struct {
				key, what string
				d         time.Duration
			}{
				{"recovery/stop", "running again after " + svc + " stopped", rec.ToRunning()},
				{"recovery/start", "running again after " + svc + " was started", rec.AfterStart()},
				{"recovery/up", "running again after " + svc + " was up", rec.AfterUp()},
			} {
				v, t := sec(f.d)
				out = append(out, Figure{Kind: FigureRecovery, Key: f.key, What: f.what, Value: v, Numeric: true, Text: t})
			}
		}
	}
	for _, s := range e.Steps {
		out = append(out, Figure{Kind: FigureStatus, Key: "status/" + s.Name, Step: s.Name, What: "ended", Text: s.Status})
		if s.Status == StatusSkipped {
			continue
		}
		if s.WaitedUntil() {
			ms := s.DurationMS
			if n := len(s.Samples); n > 0 && s.Status == StatusOK {
				ms = s.Samples[n-1].MS
			}
			v, t := sec(time.Duration(ms) * time.Millisecond)
			switch s.Status {
			case StatusOK:
				t = "held after " + t
			case StatusTimedOut:
				t = "timed out after " + t
			default:
				t = "failed after " + t
			}
			out = append(out, Figure{Kind: FigureWait, Key: "wait/" + s.Name, Step: s.Name, What: "condition", Value: v, Numeric: true, Text: t})
		}
		for _, c := range s.Captures {
			var v float64
			if c.Error != "" || json.Unmarshal(c.Value, &v) != nil || s.IdentifierCapture(c) {
				continue
			}
			out = append(out, Figure{Kind: FigureCapture, Key: "capture/" + s.Name + "/" + c.Name, Step: s.Name, What: "captured " + c.Name, Value: v, Numeric: true, Text: c.Display})
		}
		for _, k := range sortedCounts(s.Counts) {
			n := s.Counts[k]
			out = append(out, Figure{Kind: FigureCount, Key: "count/" + s.Name + "/" + k, Step: s.Name, What: k, Value: float64(n), Numeric: true, Text: fmt.Sprint(n)})
		}
		if s.Kind == schemas.StepWait {
			// A wait lasts as long as its lab says (for 20s) or until its
			// condition held, told above: its duration measures nothing more.
			continue
		}
		v, _ := sec(time.Duration(s.DurationMS) * time.Millisecond)
		out = append(out, Figure{Kind: FigureDuration, Key: "duration/" + s.Name, Step: s.Name, What: "took", Value: v, Numeric: true, Text: Duration(s.DurationMS)})
	}
	return out
}

func sortedCounts(m map[string]int64) []string {
	ks := make(map[string]string, len(m))
	for k := range m {
		ks[k] = ""
	}
	return keys(ks)
}
