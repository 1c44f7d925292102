package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
)

// A set is the runs of one lab that labgen run --repeat N made, one after
// another on one stack: set.json (the data) and set.md (the same for a
// reader) beside the runs' own record directories. No run is left out:
// one that failed is kept and shown as failed, and each figure of the set
// says over how many runs it stands.

// SetFormat is the version of set.json's layout.
const SetFormat = 1

// Files of a set's directory.
const (
	SetJSONName     = "set.json"
	SetMarkdownName = "set.md"
)

// Statuses of a run in a set.
const (
	SetRunOK          = "ok"
	SetRunFailed      = "failed"
	SetRunInterrupted = "interrupted"
)

// Set is the runs of a lab repeated, and what they measured together.
type Set struct {
	Format int    `json:"format"`
	ID     string `json:"id"`
	// Status is RunRunning while runs remain, RunFinished when all ran,
	// RunInterrupted when the set was stopped before.
	Status  string `json:"status"`
	Lab     Lab    `json:"lab"`
	Labgen  string `json:"labgen_version"`
	Command string `json:"command,omitempty"`
	// Repeats is how many runs were asked for; Runs are those that ran,
	// in order.
	Repeats int `json:"repeats"`
	// Strict says which rule judged each run (Record.Failure): labgen
	// run's, with --strict or without.
	Strict  bool       `json:"strict"`
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	Runs    []SetRun   `json:"runs"`
	// Measures and Expectations are the runs' together, in the order the
	// records list them.
	Measures     []SetMeasure     `json:"measures"`
	Expectations []SetExpectation `json:"expectations"`

	// records are the runs' records, in Runs' order (nil for a run that
	// left none).
	records []*Record
}

// SetRun is one run of a set.
type SetRun struct {
	// N is the run's place in the set, from 1.
	N int `json:"n"`
	// ID is its record's id and Dir the record's directory, relative to
	// the set's; both are empty when the run left no record.
	ID      string     `json:"id,omitempty"`
	Dir     string     `json:"dir,omitempty"`
	Started time.Time  `json:"started,omitzero"`
	Ended   *time.Time `json:"ended,omitempty"`
	// Status is SetRunOK, SetRunFailed or SetRunInterrupted; Why says
	// why a run failed (Record.Failure, or the error it ended with).
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
}

// SetMeasure is one measure of the runs: each run's value, and over the
// runs that measured it their median, least and greatest value.
type SetMeasure struct {
	// Key identifies the measure across records (MeasureKey).
	Key        string `json:"key"`
	Experiment string `json:"experiment"`
	Number     int    `json:"number"`
	Name       string `json:"name"`
	Title      string `json:"title"`
	Unit       string `json:"unit,omitempty"`
	// Definition is the hash of what decides the measure's value
	// (schemas' measure definition), as the runs' records kept it.
	Definition string `json:"definition,omitempty"`
	// Values are each run's, in Runs' order: null for a run that did not
	// measure it.
	Values []*float64 `json:"values"`
	Stats
	// NotMeasured are the runs without a value and why.
	NotMeasured []SetMiss `json:"not_measured,omitempty"`
}

// SetMiss is a run that has no value of a measure, and why.
type SetMiss struct {
	Run int    `json:"run"`
	Why string `json:"why"`
}

// Stats summarise values: how many, their median (of an even number, the
// mean of the middle two), least and greatest. With N 0 there are none.
type Stats struct {
	N      int      `json:"n"`
	Median *float64 `json:"median,omitempty"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
}

// Summarize is the one place a set's statistics are computed (a set's
// measures, a sweep's variants).
func Summarize(values []float64) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	lo, hi := v[0], v[n-1]
	return Stats{N: n, Median: &med, Min: &lo, Max: &hi}
}

// Text is the median with its range and count, in the measure's unit:
// "5.08 s (3.02–8.10 s, 5 runs)", "4.07 s" for one run, "not measured"
// for none.
func (s Stats) Text(unit string) string {
	if s.N == 0 {
		return "not measured"
	}
	t := Measure{Value: s.Median, Unit: unit}.Text()
	if s.N > 1 {
		t += fmt.Sprintf(" (%s, %d runs)", s.Range(unit), s.N)
	}
	return t
}

// Range is "3.02–8.10 s" ("" with no value).
func (s Stats) Range(unit string) string {
	if s.N == 0 {
		return ""
	}
	return Measure{Value: s.Min}.Text() + "–" + Measure{Value: s.Max, Unit: unit}.Text()
}

// SetExpectation is one expect block of the runs: in how many it held.
type SetExpectation struct {
	Experiment string `json:"experiment"`
	Number     int    `json:"number"`
	Step       string `json:"step"`
	// Index is the expectation's place among its step's.
	Index     int    `json:"index"`
	Message   string `json:"message"`
	Condition string `json:"condition"`
	// Held counts the runs in which it held, of Of: every run of the set.
	Held int `json:"held"`
	Of   int `json:"of"`
	// NotHeld are the runs (their N) in which it was evaluated and did
	// not hold; NotEvaluated those in which it never was (its step did
	// not run, or the run left no record).
	NotHeld      []int `json:"not_held,omitempty"`
	NotEvaluated []int `json:"not_evaluated,omitempty"`
}

// Count is "4/5": the runs in which it held, of the set's.
func (x SetExpectation) Count() string { return fmt.Sprintf("%d/%d", x.Held, x.Of) }

// MeasureKey identifies a measure across records of a lab: its
// experiment and its name. The one place the key is made, so that it can
// take a measure's definition too.
func MeasureKey(e *Experiment, m Measure) string { return e.Name + "/" + m.Name }

// NewSet begins a set of repeats runs of a lab.
func NewSet(id string, lab Lab, labgen, command string, repeats int, strict bool, started time.Time) *Set {
	return &Set{Format: SetFormat, ID: id, Status: RunRunning, Lab: lab, Labgen: labgen, Command: command,
		Repeats: repeats, Strict: strict, Started: started.UTC(), Runs: []SetRun{}, Measures: []SetMeasure{}, Expectations: []SetExpectation{}}
}

// SetOf is a finished set of the records given, in order (each record's
// directory its id), as labgen run --repeat would have written it: a
// set's statistics from records at hand.
func SetOf(id string, recs []*Record, strict bool) (*Set, error) {
	if len(recs) == 0 {
		return nil, errors.New("a set needs at least one record")
	}
	s := NewSet(id, recs[0].Lab, recs[0].Labgen, "", len(recs), strict, recs[0].Started)
	for _, r := range recs {
		if err := s.Add(r, r.ID, nil); err != nil {
			return nil, err
		}
	}
	end := s.Started
	if last := recs[len(recs)-1]; last.Ended != nil {
		end = *last.Ended
	}
	s.Finish(end, false)
	return s, nil
}

// Add appends a run: its record (nil when it left none), the record's
// directory relative to the set's, and the error the run ended with
// (nil when none). The set's figures are computed again. A record of
// another lab, or of another render of it, is refused: a set is repeats
// of one lab.
func (s *Set) Add(r *Record, dir string, runErr error) error {
	run := SetRun{N: len(s.Runs) + 1, Status: SetRunOK}
	if r != nil {
		if r.Lab.Name != s.Lab.Name || r.Lab.Hash != s.Lab.Hash {
			return fmt.Errorf("record %s is of lab %s (%s), not of the set's %s (%s): a set is runs of one rendered lab", r.ID, r.Lab.Name, r.Lab.Hash, s.Lab.Name, s.Lab.Hash)
		}
		run.ID, run.Dir, run.Started, run.Ended = r.ID, dir, r.Started, r.Ended
	}
	var why []string
	switch {
	case r != nil && r.Status == RunInterrupted:
		run.Status = SetRunInterrupted
	case r != nil && r.Status != RunFinished:
		run.Status, why = SetRunFailed, append(why, "the run did not finish ("+r.Status+")")
	}
	if r != nil {
		if w := r.Failure(s.Strict); w != "" {
			why = append(why, w)
		}
	}
	if runErr != nil && run.Status != SetRunInterrupted {
		why = append(why, runErr.Error())
	}
	if r == nil && runErr == nil {
		why = append(why, "the run left no record")
	}
	if len(why) > 0 && run.Status == SetRunOK {
		run.Status = SetRunFailed
	}
	run.Why = strings.Join(why, "; ")
	s.Runs = append(s.Runs, run)
	s.records = append(s.records, r)
	s.summarize()
	return nil
}

// Finish ends the set: finished, or interrupted before every run ran.
func (s *Set) Finish(at time.Time, interrupted bool) {
	at = at.UTC()
	s.Ended = &at
	s.Status = RunFinished
	if interrupted {
		s.Status = RunInterrupted
	}
}

// Records are the runs' records in Runs' order, nil for a run that left
// none (as Add was given them, or ReadSet read them).
func (s *Set) Records() []*Record { return s.records }

// SetGap is a run without a value of some measures, for one reason.
type SetGap struct {
	Run      int
	Why      string
	Measures []string
}

// Gaps are the measures runs have no value of, one entry per run and
// reason (a run that left no record lacks every measure, once), in the
// order of the runs.
func (s *Set) Gaps() []SetGap {
	var out []SetGap
	at := map[SetMiss]int{}
	for _, m := range s.Measures {
		for _, x := range m.NotMeasured {
			i, ok := at[x]
			if !ok {
				i = len(out)
				at[x] = i
				out = append(out, SetGap{Run: x.Run, Why: x.Why})
			}
			out[i].Measures = append(out[i].Measures, fmt.Sprintf("%02d %s", m.Number, m.Name))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	return out
}

// Failed are the runs that did not pass (failed or interrupted).
func (s *Set) Failed() []SetRun {
	var out []SetRun
	for _, r := range s.Runs {
		if r.Status != SetRunOK {
			out = append(out, r)
		}
	}
	return out
}

// Summary is the set in one line: "5 runs of 5: 4 ok, 1 failed (run 3)."
func (s *Set) Summary() string {
	failed, interrupted := []string{}, []string{}
	for _, r := range s.Runs {
		switch r.Status {
		case SetRunFailed:
			failed = append(failed, fmt.Sprint(r.N))
		case SetRunInterrupted:
			interrupted = append(interrupted, fmt.Sprint(r.N))
		}
	}
	t := fmt.Sprintf("%d run(s) of %d: %d ok", len(s.Runs), s.Repeats, len(s.Runs)-len(failed)-len(interrupted))
	if len(failed) > 0 {
		t += fmt.Sprintf(", %d failed (run %s)", len(failed), strings.Join(failed, ", "))
	}
	if len(interrupted) > 0 {
		t += fmt.Sprintf(", %d interrupted (run %s)", len(interrupted), strings.Join(interrupted, ", "))
	}
	if s.Strict {
		t += " under --strict"
	}
	return t + "."
}

// summarize computes the set's measures and expectations from its
// records.
func (s *Set) summarize() {
	// Runs and records share their order: a record's place is its run's N.
	s.Measures = MeasureStats(s.records)
	s.Expectations = expectationCounts(s.records)
}

// MeasureStats are the measures of records (nil entries are runs that
// left no record), each with every record's value in order and the
// statistics over those that measured it. A record's place, from 1, is
// its run in NotMeasured. Measures are keyed by MeasureKey, in the order
// the records first list them.
func MeasureStats(recs []*Record) []SetMeasure {
	out := []SetMeasure{}
	at := map[string]int{}
	for i, r := range recs {
		if r == nil {
			continue
		}
		for _, e := range r.Experiments {
			for _, m := range e.Measures {
				k := MeasureKey(e, m)
				j, ok := at[k]
				if !ok {
					j = len(out)
					at[k] = j
					out = append(out, SetMeasure{Key: k, Experiment: e.Name, Number: e.Number, Name: m.Name, Title: m.Title, Unit: m.Unit, Values: make([]*float64, len(recs))})
				}
				if out[j].Definition == "" {
					out[j].Definition = m.Definition
				}
				if m.Value != nil {
					v := *m.Value
					out[j].Values[i] = &v
				}
			}
		}
	}
	for j := range out {
		m := &out[j]
		var vs []float64
		for i, v := range m.Values {
			if v != nil {
				vs = append(vs, *v)
				continue
			}
			m.NotMeasured = append(m.NotMeasured, SetMiss{Run: i + 1, Why: notMeasured(recs[i], m)})
		}
		m.Stats = Summarize(vs)
	}
	return out
}

// notMeasured says why a record has no value of a measure.
func notMeasured(r *Record, m *SetMeasure) string {
	if r == nil {
		return "the run left no record"
	}
	e := r.Experiment(m.Experiment)
	switch {
	case e == nil:
		return "the run did not get to experiment " + m.Experiment
	case e.Status == ExpSkipped:
		return "the experiment was skipped: " + e.Skipped
	}
	for _, x := range e.Measures {
		if MeasureKey(e, x) == m.Key {
			return x.Error
		}
	}
	if e.Status != ExpDone {
		return "the experiment did not finish"
	}
	return "the experiment declared no such measure in this run"
}

// expectationCounts counts, per expectation of the records' healthy
// steps, the records in which it held.
func expectationCounts(recs []*Record) []SetExpectation {
	type key struct {
		exp, step string
		index     int
	}
	out := []SetExpectation{}
	at := map[key]int{}
	seen := make([]map[key]bool, len(recs))
	for i, r := range recs {
		seen[i] = map[key]bool{}
		if r == nil {
			continue
		}
		for _, e := range r.Experiments {
			for _, st := range e.Steps {
				for xi, x := range st.Expectations {
					k := key{e.Name, st.Name, xi}
					j, ok := at[k]
					if !ok {
						j = len(out)
						at[k] = j
						out = append(out, SetExpectation{Experiment: e.Name, Number: e.Number, Step: st.Name, Index: xi, Message: x.Message, Condition: x.Condition, Of: len(recs)})
					}
					seen[i][k] = true
					if x.Held {
						out[j].Held++
					} else {
						out[j].NotHeld = append(out[j].NotHeld, i+1)
					}
				}
			}
		}
	}
	for k, j := range at {
		for i := range recs {
			if !seen[i][k] {
				out[j].NotEvaluated = append(out[j].NotEvaluated, i+1)
			}
		}
	}
	return out
}

// WriteSet puts set.json and set.md into dir, atomically.
func WriteSet(dir string, s *Set) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := MarshalSet(s)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, SetJSONName), j, 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SetMarkdownName), SetMarkdown(s), 0o644)
}

// MarshalSet encodes the set as indented JSON, as Marshal a record.
func MarshalSet(s *Set) ([]byte, error) { return indentJSON(s) }

// IsSet tells whether path is a set's directory or its set.json.
func IsSet(path string) bool {
	if filepath.Base(path) == SetJSONName {
		_, err := os.Stat(path)
		return err == nil
	}
	_, err := os.Stat(filepath.Join(path, SetJSONName))
	return err == nil
}

// ReadSet reads a set from its directory or set.json, with the records
// its runs name (each in its directory under the set's).
func ReadSet(path string) (*Set, error) {
	dir := path
	if filepath.Base(path) == SetJSONName {
		dir = filepath.Dir(path)
	}
	p := filepath.Join(dir, SetJSONName)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var s Set
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is not a set of runs: %w", p, err)
	}
	if s.Format != SetFormat {
		return nil, fmt.Errorf("%s is a set of format %d; this labgen reads format %d", p, s.Format, SetFormat)
	}
	s.records = make([]*Record, len(s.Runs))
	for i, run := range s.Runs {
		if run.Dir == "" {
			continue
		}
		if !filepath.IsLocal(run.Dir) {
			return nil, fmt.Errorf("%s: run %d's record %q is not a directory inside the set's", p, run.N, run.Dir)
		}
		r, err := Read(filepath.Join(dir, run.Dir))
		if err != nil {
			return nil, fmt.Errorf("%s: run %d: %w", p, run.N, err)
		}
		s.records[i] = r
	}
	return &s, nil
}

// SetMarkdown renders the set for a reader: its head, one row per
// measure (median, range, how many runs measured it, each run's value),
// one per expectation (in how many runs it held, which did not), and the
// runs with their records.
func SetMarkdown(s *Set) []byte {
	var b bytes.Buffer
	w := &b
	title := s.Lab.Title
	if title == "" {
		title = s.Lab.Name
	}
	fmt.Fprintf(w, "# Set of runs: %s\n\n", title)
	status := ""
	switch s.Status {
	case RunRunning:
		status = " (in progress, or stopped before it could say so)"
	case RunInterrupted:
		status = " (interrupted before every run ran)"
	}
	fmt.Fprintf(w, "Lab `%s`, set `%s`: %s%s\n\n", s.Lab.Name, s.ID, s.Summary(), status)
	head := [][]string{
		{"Lab", fmt.Sprintf("%s (%s)", s.Lab.Name, s.Lab.Hash)},
		{"labgen", s.Labgen},
		{"Started", stamp(s.Started)},
	}
	if s.Ended != nil {
		head = append(head, []string{"Ended", fmt.Sprintf("%s (%s)", stamp(*s.Ended), Duration(s.Ended.Sub(s.Started).Milliseconds()))})
	}
	if s.Command != "" {
		head = append(head, []string{"Command", "`" + s.Command + "`"})
	}
	rule := "labgen run's: a step or a job submission failed"
	if s.Strict {
		rule += "; with --strict also an expectation not held, a blind one, or one no control showed able to fail"
	}
	head = append(head, []string{"A run failed when", rule})
	writeTable(w, []string{"", ""}, head, nil)

	fmt.Fprintf(w, "\n## Measures\n\n")
	if len(s.Measures) == 0 {
		fmt.Fprintf(w, "The experiments that ran declare no measure.\n")
	} else {
		fmt.Fprintf(w, "Over the runs that measured each (N of %d), failed runs included: the median (of an even N, the mean of the middle two), the range, and each run's value in order (– where it has none).\n\n", len(s.Runs))
		var rows [][]string
		for _, m := range s.Measures {
			med := "not measured"
			if m.N > 0 {
				med = Measure{Value: m.Median, Unit: m.Unit}.Text()
			}
			var each []string
			for _, v := range m.Values {
				if v == nil {
					each = append(each, "–")
					continue
				}
				each = append(each, Measure{Value: v}.Text())
			}
			rows = append(rows, []string{fmt.Sprintf("%02d", m.Number), m.Title, med, m.Range(m.Unit), fmt.Sprintf("%d of %d", m.N, len(s.Runs)), strings.Join(each, ", ")})
		}
		writeTable(w, []string{"exp", "measure", "median", "range", "N", "each run"}, rows, nil)
		if gaps := s.Gaps(); len(gaps) > 0 {
			fmt.Fprintf(w, "\nNot measured:\n\n")
			for _, g := range gaps {
				fmt.Fprintf(w, "- run %d, %s: %s\n", g.Run, strings.Join(g.Measures, ", "), oneLine(g.Why))
			}
		}
	}

	fmt.Fprintf(w, "\n## Expectations\n\n")
	if len(s.Expectations) == 0 {
		fmt.Fprintf(w, "The experiments that ran declare no expectation.\n")
	} else {
		fmt.Fprintf(w, "In how many of the %d runs each held (on the healthy stack).\n\n", len(s.Runs))
		var rows [][]string
		for _, x := range s.Expectations {
			var not []string
			if len(x.NotHeld) > 0 {
				not = append(not, "not held in run "+runList(x.NotHeld))
			}
			if len(x.NotEvaluated) > 0 {
				not = append(not, "not evaluated in run "+runList(x.NotEvaluated))
			}
			rows = append(rows, []string{fmt.Sprintf("%02d", x.Number), "`" + x.Step + "`", x.Message, x.Count(), strings.Join(not, "; ")})
		}
		writeTable(w, []string{"exp", "step", "expectation", "held", "the other runs"}, rows, nil)
	}

	fmt.Fprintf(w, "\n## Runs\n\n")
	var rows [][]string
	for _, r := range s.Runs {
		rec := "(no record)"
		if r.Dir != "" {
			rec = fmt.Sprintf("[%s](%s/%s)", r.ID, filepath.ToSlash(r.Dir), MarkdownName)
		}
		took := ""
		if r.Ended != nil && !r.Started.IsZero() {
			took = Duration(r.Ended.Sub(r.Started).Milliseconds())
		}
		st := r.Status
		if r.Why != "" {
			st += ": " + oneLine(r.Why)
		}
		rows = append(rows, []string{fmt.Sprint(r.N), rec, stamp(r.Started), took, st})
	}
	writeTable(w, []string{"run", "record", "started", "took", "status"}, rows, nil)
	if n := s.Repeats - len(s.Runs); n > 0 {
		fmt.Fprintf(w, "\n%d run(s) of the %d asked for did not run.\n", n, s.Repeats)
	}
	return b.Bytes()
}

func runList(ns []int) string {
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprint(n))
	}
	return strings.Join(out, ", ")
}
