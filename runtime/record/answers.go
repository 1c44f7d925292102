package record

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Answer is one experiment's answer to its question: the question once,
// each expectation's verdict with the values it compared and how its
// controls judged it, and the experiment's measures. It opens record.md
// and its page, before anything of how the run went.
type Answer struct {
	Number              int
	Experiment, Title   string
	Question            string
	Status, Skipped     string
	Expectations        []AnswerExpectation
	Measures            []Measure
	NotRun, StepsFailed int
	// Controlled tells whether the run ran controls at all: without
	// any, the answer has no controls column.
	Controlled bool
}

// AnswerExpectation is one expectation of an answer.
type AnswerExpectation struct {
	Step    string
	Index   int
	Message string
	// Outcome is "held", "not held" or why it was not checked (Outcome).
	Outcome string
	// Bounds are the parts that compared a value to a bound (<, <=, >,
	// >=), as evaluated on the healthy stack.
	Bounds []Bound
	// Controls are the verdicts of the expectation under its controls
	// (or its sanity reason), in the record's order.
	Controls []Verdict
}

// Bound is one comparison of a condition: the measured side, the
// operator and the bound, as evaluated, with the part's expression.
type Bound struct {
	Expr, Value, Op, Bound string
	Held                   bool
}

// Text is the comparison as shown: "8103 ≤ 30000".
func (b Bound) Text() string { return b.Value + " " + b.Op + " " + b.Bound }

// Incomplete says why the answer is not whole: steps that failed or
// did not run yet; "" when every step ran without an error.
func (a Answer) Incomplete() string {
	var why []string
	if a.StepsFailed > 0 {
		why = append(why, fmt.Sprintf("%d step(s) failed", a.StepsFailed))
	}
	if a.NotRun > 0 {
		why = append(why, fmt.Sprintf("%d step(s) not run yet", a.NotRun))
	}
	if len(why) == 0 {
		return ""
	}
	return "Not answered in full: " + strings.Join(why, ", ") + "."
}

// Bounded tells whether any expectation of the answer compares a value
// to a bound: without one, the answer has no column for them.
func (a Answer) Bounded() bool {
	for _, x := range a.Expectations {
		if len(x.Bounds) > 0 {
			return true
		}
	}
	return false
}

// Detailed tells whether any measure of the answer says what it
// summarises, or why it was not measured: without one, the answer's
// measures have no column for it.
func (a Answer) Detailed() bool {
	for _, m := range a.Measures {
		if m.Value == nil || m.Details() != "" {
			return true
		}
	}
	return false
}

// Answers are the record's answers, one per experiment, in order.
func (r *Record) Answers() []Answer {
	var out []Answer
	own := r.OwnVerdicts()
	for _, e := range r.Experiments {
		a := Answer{Number: e.Number, Experiment: e.Name, Title: e.Title, Question: e.Question, Status: e.Status, Skipped: e.Skipped, Measures: e.Measures, Controlled: len(r.Verdicts) > 0}
		if e.Status != ExpSkipped {
			a.NotRun = e.Total - len(e.Steps)
		}
		for _, s := range e.Steps {
			if s.Status == StatusError {
				a.StepsFailed++
			}
			for i, x := range s.Expectations {
				ax := AnswerExpectation{Step: s.Name, Index: i, Message: x.Message, Outcome: Outcome(s, i)}
				for _, p := range x.Parts {
					if b, ok := boundOf(p); ok {
						ax.Bounds = append(ax.Bounds, b)
					}
				}
				for _, v := range own {
					if v.Experiment == e.Name && v.Step == s.Name && v.Index == i {
						ax.Controls = append(ax.Controls, v)
					}
				}
				a.Expectations = append(a.Expectations, ax)
			}
		}
		out = append(out, a)
	}
	return out
}

// boundOf reads a part that compared two numbers by order ("8103 <=
// 30000"): equalities are not bounds, and a comparison of texts is none.
func boundOf(p Part) (Bound, bool) {
	if p.Error != "" || p.Values == "" {
		return Bound{}, false
	}
	for _, op := range []string{" <= ", " >= ", " < ", " > "} {
		l, rt, ok := strings.Cut(p.Values, op)
		if !ok {
			continue
		}
		lv, lok := shortNumber(l)
		rv, rok := shortNumber(rt)
		if !lok || !rok {
			return Bound{}, false
		}
		sym := map[string]string{" <= ": "≤", " >= ": "≥", " < ": "<", " > ": ">"}[op]
		return Bound{Expr: p.Expr, Value: lv, Op: sym, Bound: rv, Held: p.Held}, true
	}
	return Bound{}, false
}

// shortNumber shows a number as evaluated with at most four significant
// digits after the point ("5.03" for 5.0300000…, cut or not).
func shortNumber(s string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "…")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true
}

// ControlText is the expectation's control verdicts in one line: "shown able
// to fail by orders_lost (2920 == 2925), taskmanager_paused (…)", "sanity
// check: why", "blind under x", "no control ran".
func (a AnswerExpectation) ControlText() string {
	if len(a.Controls) == 0 {
		return "no control ran"
	}
	by := map[string][]string{}
	var order []string
	for _, v := range a.Controls {
		k := v.Verdict
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		switch {
		case v.Verdict == VerdictSanity:
			by[k] = append(by[k], v.Why)
		case v.Control == "":
			by[k] = append(by[k], v.Under)
		case len(v.Seen) > 0:
			by[k] = append(by[k], fmt.Sprintf("%s (%s)", v.Control, seenValues(v.Seen)))
		case v.Verdict == VerdictNotCheckable || v.Verdict == VerdictNotShown:
			by[k] = append(by[k], fmt.Sprintf("%s (%s)", v.Control, v.Under))
		default:
			by[k] = append(by[k], v.Control)
		}
	}
	var parts []string
	for _, k := range order {
		switch k {
		case VerdictAbleToFail:
			parts = append(parts, "shown able to fail by "+strings.Join(by[k], "; "))
		case VerdictSanity:
			parts = append(parts, "sanity check: "+strings.Join(by[k], "; "))
		case VerdictNoControl:
			parts = append(parts, k)
		default:
			parts = append(parts, k+" under "+strings.Join(by[k], "; "))
		}
	}
	return strings.Join(parts, "; ")
}

// seenValues are the values of the parts seen under a control, without
// their expressions: "2920 == 2925, 34220 <= 30000".
func seenValues(seen []string) string {
	var vs []string
	for _, s := range seen {
		if i := strings.LastIndex(s, ": "); i >= 0 {
			s = s[i+2:]
		}
		vs = append(vs, s)
	}
	return strings.Join(vs, ", ")
}

// AnswersIntro says what the answers are, on the page and in record.md.
const AnswersIntro = "Each experiment's question, then how its expectations fared on the healthy stack (the value measured beside its bound where one compares them), whether a control showed each able to fail, and the experiment's measures."

// NoAnswer stands for an experiment with neither expectation nor
// measure.
const NoAnswer = "No expectation or measure: the experiment's steps are its account."

// writeAnswers is record.md's answers section.
func writeAnswers(w io.Writer, r *Record) {
	as := r.Answers()
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Answers\n\n%s\n", AnswersIntro)
	for _, a := range as {
		fmt.Fprintf(w, "\n### %02d %s\n\n", a.Number, a.Title)
		if a.Question != "" {
			fmt.Fprintf(w, "**Question.** %s\n\n", a.Question)
		}
		if a.Status == ExpSkipped {
			fmt.Fprintf(w, "Not answered: the experiment was skipped (%s).\n", a.Skipped)
			continue
		}
		if s := a.Incomplete(); s != "" {
			fmt.Fprintf(w, "%s\n\n", s)
		}
		if len(a.Expectations) > 0 {
			var rows [][]string
			for _, x := range a.Expectations {
				var bs []string
				for _, b := range x.Bounds {
					bs = append(bs, b.Text()+" (`"+b.Expr+"`)")
				}
				row := []string{x.Message, "**" + x.Outcome + "**"}
				if a.Bounded() {
					row = append(row, strings.Join(bs, "; "))
				}
				if a.Controlled {
					row = append(row, x.ControlText())
				}
				rows = append(rows, row)
			}
			header := []string{"expectation", "verdict"}
			if a.Bounded() {
				header = append(header, "measured vs bound")
			}
			if a.Controlled {
				header = append(header, "controls")
			}
			writeTable(w, header, rows, uniform(len(header), 400))
		}
		if len(a.Expectations) == 0 && len(a.Measures) == 0 {
			fmt.Fprintf(w, "%s\n", NoAnswer)
		}
		if len(a.Measures) > 0 {
			fmt.Fprintln(w)
			var rows [][]string
			for _, m := range a.Measures {
				val, det := "**"+m.ValueText()+"**", m.Details()
				if m.Value == nil {
					val, det = "**not measured**", m.Error
				}
				row := []string{m.Title, val}
				if a.Detailed() {
					row = append(row, det)
				}
				rows = append(rows, row)
			}
			header := []string{"measure", "measured"}
			if a.Detailed() {
				header = append(header, "of")
			}
			writeTable(w, header, rows, uniform(len(header), 400))
		}
	}
}
