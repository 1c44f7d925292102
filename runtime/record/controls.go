package record

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/labgen/labgen/schemas"
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
	// VerdictNotCheckable: under the control the expectation had nothing
	// to be false on: its step was skipped, failed or returned nothing,
	// or its condition could not be evaluated. An error, a skip or an
	// empty result shows nothing about the claim, so it never counts as
	// a detection.
	VerdictNotCheckable = "not checkable"
)

// What the record's and the page's controls sections say of their tables,
// in one place.
const (
	ControlsIntro = "Each expectation against the negative controls it names: held on the healthy stack, and false under the control on a result that exists, shows it able to fail; held under the control too, it is blind; a skipped, failed or empty step, or a condition that could not be evaluated, is not checkable and shows nothing."
	MutantsIntro  = "Each mutant runs a job with SQL or settings wrong in one named way; an expectation kills it when it is shown able to fail under it."
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
	// Kind is the control's (schemas.ControlKillSwitch, …); Diff,
	// for a mutant, is its query against the job's (a unified diff).
	Kind string `json:"kind,omitempty"`
	Diff string `json:"diff,omitempty"`
}

// Mutant is one mutant control of a run and whether an expectation
// killed it: was shown able to fail under it.
type Mutant struct {
	Control string
	Title   string
	Diff    string
	Killed  bool
	// Auto: derived with Flink's parser (labgen run --mutants), not
	// declared by the lab.
	Auto bool
	// By are the steps whose expectations killed it.
	By []KilledBy
	// Unseen: no experiment of the lab reads what its job writes, so
	// none ran under it.
	Unseen bool
	// Error, when no experiment ran under it, is why: it could not be
	// applied.
	Error string
}

// UnseenMutant is an automatic mutant no experiment could see.
type UnseenMutant struct {
	Control string `json:"control"`
	Title   string `json:"title"`
	Diff    string `json:"diff,omitempty"`
}

// Survived says why a mutant survived, as record.md and the page
// say it.
func (m Mutant) Survived() string {
	switch {
	case m.Unseen:
		return "no experiment reads what its job writes"
	case m.Error != "":
		return m.Error // "the control could not be applied, so …"
	}
	return "no expectation was false under it"
}

// KilledBy is a step of an experiment with an expectation that was
// shown able to fail under a mutant.
type KilledBy struct {
	Number int
	Step   string
}

// Mutants are the run's mutant controls, the lab's and the automatic
// ones, in the order they ran.
func (r *Record) Mutants() []Mutant {
	var out []Mutant
	at := map[string]int{}
	ran := map[string]bool{}
	for _, c := range r.Controls {
		if c.Kind != schemas.ControlMutant && c.Kind != schemas.ControlAutoMutant {
			continue
		}
		if _, ok := at[c.Control]; !ok {
			at[c.Control] = len(out)
			out = append(out, Mutant{Control: c.Control, Title: c.Title, Diff: c.Diff, Auto: c.Kind == schemas.ControlAutoMutant})
		}
		if len(c.Steps) > 0 {
			ran[c.Control] = true
		} else if m := &out[at[c.Control]]; m.Error == "" {
			m.Error = c.Error
		}
	}
	for i := range out {
		if ran[out[i].Control] {
			out[i].Error = ""
		}
	}
	for _, u := range r.Unseen {
		if _, ok := at[u.Control]; !ok {
			at[u.Control] = len(out)
			out = append(out, Mutant{Control: u.Control, Title: u.Title, Diff: u.Diff, Auto: true, Unseen: true})
		}
	}
	for _, v := range r.Verdicts {
		if i, ok := at[v.Control]; ok && v.Verdict == VerdictAbleToFail {
			out[i].Killed = true
			by := KilledBy{v.Number, v.Step}
			if !slices.Contains(out[i].By, by) {
				out[i].By = append(out[i].By, by)
			}
		}
	}
	return out
}

// MutationScore says how many mutants an expectation killed: "3 of 3
// mutants killed", then the automatic mutants' apart ("; automatic
// mutants: 18 of 21 killed (…)"), or "" when none ran.
func (r *Record) MutationScore() string {
	var parts []string
	ms := r.Mutants()
	for _, auto := range []bool{false, true} {
		killed, n := 0, 0
		var survivors []string
		for _, m := range ms {
			if m.Auto != auto {
				continue
			}
			n++
			if m.Killed {
				killed++
			} else {
				survivors = append(survivors, m.Control)
			}
		}
		if n == 0 {
			continue
		}
		s := fmt.Sprintf("%d of %d mutants killed", killed, n)
		if auto {
			s = fmt.Sprintf("automatic mutants: %d of %d killed (%d %%)", killed, n, 100*killed/n)
		}
		if len(survivors) > 0 {
			s += " (survived: " + strings.Join(survivors, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// OwnVerdicts are the verdicts under the lab's own controls. An
// automatic mutant's are in the mutants' list, as the steps that killed
// it: a blind one is a survivor's trace, not an expectation's defect.
func (r *Record) OwnVerdicts() []Verdict {
	auto := map[string]bool{}
	for _, c := range r.Controls {
		if c.Kind == schemas.ControlAutoMutant {
			auto[c.Control] = true
		}
	}
	var out []Verdict
	for _, v := range r.Verdicts {
		if !auto[v.Control] {
			out = append(out, v)
		}
	}
	return out
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
	// Seen is what the condition's parts were under the control: those
	// that turned false, each with the values it compared
	// ("result.restarts == 0: 3 == 0"); every part for a blind one.
	Seen    []string `json:"seen,omitempty"`
	Verdict string   `json:"verdict"`
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

// Judge gives the verdict of expectation i of a step under one control:
// healthy is the step as it ran on the healthy stack, run the control's
// run of the experiment (nil when it did not run). It returns how the
// expectation fared under the control, the verdict, and the parts of its
// condition seen there. An expectation is shown able to fail only when
// its condition was false on a result that exists: the step ran and
// returned rows (or messages, or a state), and the condition evaluated
// without error.
func Judge(healthy *Step, run *ControlRun, step string, i int) (under, verdict string, seen []string) {
	if run == nil || run.Steps == nil {
		under = "not run"
		if run != nil && run.Error != "" {
			under = "not run: " + oneLine(run.Error)
		}
		return under, VerdictNotShown, nil
	}
	s := run.Step(step)
	under = Outcome(s, i)
	if Outcome(healthy, i) != "held" {
		return under, VerdictNotShown, nil
	}
	if s == nil || i >= len(s.Expectations) || s.Expectations[i].Error != "" {
		return under, VerdictNotCheckable, nil
	}
	x := s.Expectations[i]
	if x.Held {
		for _, p := range x.Parts {
			seen = append(seen, p.Seen())
		}
		return under, VerdictBlind, seen
	}
	for _, p := range x.Parts {
		if !p.Held {
			seen = append(seen, p.Seen())
		}
	}
	switch {
	case s.Status == StatusError:
		return "not checked: the step failed (" + oneLine(s.Error) + ")", VerdictNotCheckable, seen
	case empty(s):
		return "not checked: the step returned nothing (" + countsText(s.Counts) + ")", VerdictNotCheckable, seen
	}
	return under, VerdictAbleToFail, seen
}

// empty tells whether a step's result had no rows or messages at all:
// an expectation false there read nothing the pipeline did.
func empty(s *Step) bool {
	n, ok := s.Counts["rows"]
	if m, isKafka := s.Counts["messages"]; isKafka {
		n, ok = m+s.Counts["tombstones"], true
	}
	return ok && n == 0
}

func countsText(c map[string]int64) string {
	var parts []string
	for _, k := range []string{"rows", "messages", "tombstones"} {
		if n, ok := c[k]; ok {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// Blind counts the verdicts that show an expectation blind to its
// control.
func (r *Record) Blind() int {
	n := 0
	for _, v := range r.OwnVerdicts() {
		if v.Verdict == VerdictBlind {
			n++
		}
	}
	return n
}

// Unshown are the expectations that held on the healthy stack, are not
// sanity checks, and that no control showed able to fail: each as
// "experiment NN step: message". --strict fails a run with any.
func (r *Record) Unshown() []string {
	type key struct {
		exp   string
		step  string
		index int
	}
	shown := map[key]bool{}
	var order []key
	text := map[key]string{}
	for _, v := range r.Verdicts {
		k := key{v.Experiment, v.Step, v.Index}
		if _, ok := shown[k]; !ok {
			order = append(order, k)
			text[k] = fmt.Sprintf("experiment %02d `%s`: %s", v.Number, v.Step, v.Message)
			shown[k] = false
		}
		if v.Verdict == VerdictAbleToFail || v.Verdict == VerdictSanity || v.Healthy != "held" {
			shown[k] = true
		}
	}
	var out []string
	for _, k := range order {
		if !shown[k] {
			out = append(out, text[k])
		}
	}
	return out
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
	for _, v := range r.OwnVerdicts() {
		n[v.Verdict]++
	}
	s := fmt.Sprintf("%d shown able to fail, %d blind, %d not checkable, %d sanity checks", n[VerdictAbleToFail], n[VerdictBlind], n[VerdictNotCheckable], n[VerdictSanity])
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
	fmt.Fprintf(w, "\n## Controls\n\n%s %s.\n\n", ControlsIntro, r.VerdictSummary())
	if un := r.Unshown(); len(un) > 0 {
		fmt.Fprintf(w, "Not shown able to fail by any control (%d):\n\n", len(un))
		for _, u := range un {
			fmt.Fprintf(w, "- %s\n", u)
		}
		fmt.Fprintln(w)
	}
	var rows [][]string
	for _, v := range r.OwnVerdicts() {
		ctl, under := v.Control, v.Under
		if v.Verdict == VerdictSanity {
			ctl, under = "(sanity check)", v.Why
		}
		if len(v.Seen) > 0 {
			under += ": `" + strings.Join(v.Seen, "`; `") + "`"
		}
		rows = append(rows, []string{fmt.Sprintf("%02d", v.Number), "`" + v.Step + "`", v.Message, ctl, v.Healthy, under, "**" + v.Verdict + "**"})
	}
	writeTable(w, []string{"exp.", "step", "expectation", "control", "healthy", "under the control", "verdict"}, rows, nil)
	if score := r.MutationScore(); score != "" {
		fmt.Fprintf(w, "\n### Mutants\n\n%s %s.\n", MutantsIntro, score)
		for _, m := range r.Mutants() {
			word := "killed"
			if m.Auto && m.Killed {
				var by []string
				for _, b := range m.By {
					by = append(by, fmt.Sprintf("%02d `%s`", b.Number, b.Step))
				}
				word = "killed by " + strings.Join(by, ", ")
			}
			if !m.Killed {
				word = "**survived**: " + m.Survived()
			}
			fmt.Fprintf(w, "\n- `%s` (%s): %s.\n", m.Control, m.Title, word)
			if m.Diff != "" {
				fmt.Fprintf(w, "\n```diff\n%s```\n", m.Diff)
			}
		}
	}
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
