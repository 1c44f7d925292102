package record

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Verdicts of an expectation under its controls.
const (
	// VerdictAbleToFail: held on the healthy stack, not under the control.
	VerdictAbleToFail = "shown able to fail"
	// VerdictBlind: held on the healthy stack and under the control too:
	// the expectation does not see what the control breaks.
	VerdictBlind = "blind"
	// VerdictSanity: a sanity check, no control applies (the lab says why).
	VerdictSanity = "sanity check"
	// VerdictNoControl: the expectation names no control and is not a
	// sanity check.
	VerdictNoControl = "no control named"
	// VerdictNotShown: the comparison cannot be made (it did not hold on
	// the healthy stack, or the control could not be applied).
	VerdictNotShown = "not shown"
)

// ControlRun is one experiment run again under one control: what was
// done to the stack, the steps as they ran, and how it was undone.
type ControlRun struct {
	Experiment string `json:"experiment"`
	Number     int    `json:"number"`
	Control    string `json:"control"`
	Title      string `json:"title"`
	// Applied and Undone are the actions as the face ran them.
	Applied []string `json:"applied"`
	Undone  []string `json:"undone,omitempty"`
	// Error says what went wrong applying or undoing the control.
	Error   string     `json:"error,omitempty"`
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	// Cap is the bound on waits and step timeouts while it was on.
	Cap   string  `json:"cap"`
	Steps []*Step `json:"steps"`
}

// Verdict is one expectation of a healthy run against one of its
// controls (or its sanity reason).
type Verdict struct {
	Experiment string `json:"experiment"`
	Number     int    `json:"number"`
	Step       string `json:"step"`
	// Index is the expectation's position among its step's.
	Index   int    `json:"index"`
	Message string `json:"message"`
	// Control is "" for a sanity check or an expectation without one.
	Control string `json:"control,omitempty"`
	// Healthy and Under say how the expectation fared: "held", "not
	// held", or why it was not checked.
	Healthy string `json:"healthy"`
	Under   string `json:"under,omitempty"`
	Verdict string `json:"verdict"`
	// Why is the lab's reason for a sanity check.
	Why string `json:"why,omitempty"`
}

// Outcome says how one expectation of a step fared: "held", "not held",
// or why it was not checked (the step skipped, failed, the condition
// could not be evaluated).
func Outcome(s *Step, i int) string {
	if s == nil {
		return "not checked: the step did not run"
	}
	if i < len(s.Expectations) {
		x := s.Expectations[i]
		if x.Error != "" {
			return "not checked: " + x.Error
		}
		return outcomeWord(x)
	}
	switch s.Status {
	case StatusSkipped:
		return "not checked: the step was skipped (" + s.Skipped + ")"
	case StatusError:
		return "not checked: the step failed"
	}
	return "not checked"
}

// outcomeWord is an expectation's outcome in a word or two.
func outcomeWord(x Expectation) string {
	switch {
	case x.Error != "":
		return "not checked"
	case x.Held:
		return "held"
	}
	return "not held"
}

// Blind counts the verdicts that show an expectation blind to its
// control.
func (r *Record) Blind() int {
	n := 0
	for _, v := range r.Verdicts {
		if v.Verdict == VerdictBlind {
			n++
		}
	}
	return n
}

// Step is the run's step of that name, or nil.
func (c *ControlRun) Step(name string) *Step {
	for _, s := range c.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// VerdictSummary counts the verdicts: "25 shown able to fail, 0 blind, 4
// sanity checks", or "" when no control ran.
func (r *Record) VerdictSummary() string {
	if len(r.Verdicts) == 0 {
		return ""
	}
	n := map[string]int{}
	for _, v := range r.Verdicts {
		n[v.Verdict]++
	}
	s := fmt.Sprintf("%d shown able to fail, %d blind, %d sanity checks", n[VerdictAbleToFail], n[VerdictBlind], n[VerdictSanity])
	if k := n[VerdictNotShown]; k > 0 {
		s += fmt.Sprintf(", %d not shown", k)
	}
	if k := n[VerdictNoControl]; k > 0 {
		s += fmt.Sprintf(", %d with no control named", k)
	}
	return s
}

// writeControls is record.md's controls section: one row per
// expectation and control, then what each control run did.
func writeControls(w io.Writer, r *Record) {
	if len(r.Verdicts) == 0 && len(r.Controls) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Controls\n\nEach expectation against the negative controls it names: held on the healthy stack, and not under the control, shows it able to fail; held under the control too, it is blind. %s.\n\n", r.VerdictSummary())
	var rows [][]string
	for _, v := range r.Verdicts {
		ctl, under := v.Control, v.Under
		if v.Verdict == VerdictSanity {
			ctl, under = "(sanity check)", v.Why
		}
		rows = append(rows, []string{fmt.Sprintf("%02d", v.Number), "`" + v.Step + "`", v.Message, ctl, v.Healthy, under, "**" + v.Verdict + "**"})
	}
	writeTable(w, []string{"exp.", "step", "expectation", "control", "healthy", "under the control", "verdict"}, rows, nil)
	for _, c := range r.Controls {
		fmt.Fprintf(w, "\n### %02d under control `%s`: %s\n\n", c.Number, c.Control, c.Title)
		for _, a := range c.Applied {
			fmt.Fprintf(w, "- Applied: `%s`\n", a)
		}
		for _, a := range c.Undone {
			fmt.Fprintf(w, "- Undone: `%s`\n", a)
		}
		fmt.Fprintf(w, "- Waits and step timeouts capped at %s while it was on.\n", c.Cap)
		if c.Ended != nil {
			fmt.Fprintf(w, "- Took %s.\n", Duration(c.Ended.Sub(c.Started).Milliseconds()))
		}
		if c.Error != "" {
			fmt.Fprintf(w, "\n```\n%s\n```\n", strings.TrimRight(c.Error, "\n"))
		}
		var srows [][]string
		for _, s := range c.Steps {
			var xs []string
			for _, x := range s.Expectations {
				xs = append(xs, outcomeWord(x))
			}
			why := s.Skipped
			if s.Status == StatusError {
				why = oneLine(s.Error)
			}
			srows = append(srows, []string{"`" + s.Name + "`", s.Status, Duration(s.DurationMS), strings.Join(xs, ", "), why})
		}
		fmt.Fprintln(w)
		writeTable(w, []string{"step", "status", "took", "expectations", "why"}, srows, uniform(5, 200))
	}
}
