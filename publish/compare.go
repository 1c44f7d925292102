package publish

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/runtime/record"
)

// The comparison page puts side by side what the records measured, per
// experiment: each expectation's verdict, the measured figures
// (record.Figures: recovery, waits, numeric captures, and the counts,
// statuses and durations that tell the records apart) and the sampled
// quantities overlaid. Identifiers (which order a step followed) differ
// on every run and say nothing about the lab: they are never compared.

type compareView struct {
	Lab, Title string
	Records    []compareRecord
	// LabDiffers: the records ran different versions of the lab.
	LabDiffers bool
	Hashes     []string
	// Vars are the variables (and the seed) that differ; Same says the
	// others in one line.
	Vars        []varRow
	Same        string
	Experiments []compareExp
}

type compareRecord struct {
	ID, Page, Status, Summary string
}

type varRow struct {
	Name   string
	Values []string
}

type compareExp struct {
	Name, Title string
	Number      int
	// States is each record's experiment: done, skipped (why), not run.
	States       []string
	StatesDiffer bool
	Expect       []compareRow
	Figures      []compareRow
	Charts       []chart
}

// compareRow is one expectation or figure, a cell per record.
type compareRow struct {
	Step, What string
	// Kind is a figure's (record.Figure's Kind): a measure's row, which
	// belongs to no step, says so.
	Kind  string
	Cells []compareCell
}

type compareCell struct {
	Text string
	// Class is the verdict's (held, not-held, not-checked), or "absent".
	Class string
	Title string
}

func buildCompare(rs []*record.Record, names []string) (*compareView, error) {
	// A measure's values are set side by side only where they measure the
	// same thing.
	if err := record.SameDefinitions(rs, names); err != nil {
		return nil, err
	}
	v := &compareView{Lab: rs[0].Lab.Name, Title: rs[0].Lab.Title}
	if v.Title == "" {
		v.Title = v.Lab
	}
	for i, r := range rs {
		v.Records = append(v.Records, compareRecord{ID: names[i], Page: names[i] + ".html", Status: r.Status, Summary: r.Count().Summary()})
		v.Hashes = append(v.Hashes, r.Lab.Hash)
		v.LabDiffers = v.LabDiffers || r.Lab.Hash != rs[0].Lab.Hash
	}
	v.Vars, v.Same = variables(rs)
	for _, name := range expOrder(rs) {
		ce, err := compareExperiment(rs, names, name)
		if err != nil {
			return nil, err
		}
		v.Experiments = append(v.Experiments, ce)
	}
	return v, nil
}

// variables are the seed and the variables that differ between the
// records, and the others in one line.
func variables(rs []*record.Record) ([]varRow, string) {
	var order []string
	vals := map[string][]string{}
	put := func(name string, i int, val string) {
		if _, ok := vals[name]; !ok {
			order = append(order, name)
			vals[name] = make([]string, len(rs))
			for j := range vals[name] {
				vals[name][j] = "(absent)"
			}
		}
		vals[name][i] = val
	}
	for i, r := range rs {
		put("seed", i, fmt.Sprint(r.Seed))
		for _, x := range r.Variables {
			put(x.Name, i, compact(x.Value))
		}
	}
	var differ []varRow
	var same []string
	for _, n := range order {
		row := varRow{Name: n, Values: vals[n]}
		if allSame(row.Values) {
			same = append(same, n+" = "+row.Values[0])
			continue
		}
		differ = append(differ, row)
	}
	return differ, strings.Join(same, ", ")
}

func allSame(xs []string) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// expOrder is the experiments of every record: the first record's order,
// then others'.
func expOrder(rs []*record.Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		for _, e := range r.Experiments {
			if !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		}
	}
	return out
}

func compareExperiment(rs []*record.Record, names []string, name string) (compareExp, error) {
	ce := compareExp{Name: name}
	es := make([]*record.Experiment, len(rs))
	for i, r := range rs {
		es[i] = r.Experiment(name)
		state := "not run"
		if e := es[i]; e != nil {
			ce.Title, ce.Number = e.Title, e.Number
			state = e.Status
			if e.Status == record.ExpSkipped {
				state = "skipped: " + e.Skipped
			}
		}
		ce.States = append(ce.States, state)
	}
	ce.StatesDiffer = !allSame(ce.States)
	ce.Expect = expectations(es)
	ce.Figures = figures(es)
	charts, err := overlaid(es, names)
	if err != nil {
		return ce, fmt.Errorf("experiment %s: %w", name, err)
	}
	ce.Charts = charts
	return ce, nil
}

// rows lines up keyed rows of several records: the first record's order,
// then others'.
type rows struct {
	order []string
	byKey map[string]*compareRow
	n     int
}

func newRows(n int) *rows { return &rows{byKey: map[string]*compareRow{}, n: n} }

func (t *rows) put(key, step, what string, i int, c compareCell) {
	r, ok := t.byKey[key]
	if !ok {
		r = &compareRow{Step: step, What: what, Cells: make([]compareCell, t.n)}
		t.byKey[key] = r
		t.order = append(t.order, key)
	}
	r.Cells[i] = c
}

func (t *rows) list(keep func(key string, r *compareRow) bool, absent compareCell) []compareRow {
	var out []compareRow
	for _, k := range t.order {
		r := t.byKey[k]
		for i := range r.Cells {
			if r.Cells[i].Text == "" {
				r.Cells[i] = absent
			}
		}
		if keep(k, r) {
			out = append(out, *r)
		}
	}
	return out
}

// expectations is each expect block's verdict per record: held, not held,
// or not checked (not evaluated, or its step did not run).
func expectations(es []*record.Experiment) []compareRow {
	t := newRows(len(es))
	for i, e := range es {
		if e == nil {
			continue
		}
		for _, s := range e.Steps {
			for _, x := range s.Expectations {
				c := compareCell{Text: "held", Class: "held"}
				switch {
				case x.Error != "":
					c = compareCell{Text: "not checked", Class: "not-checked", Title: x.Error}
				case !x.Held:
					c = compareCell{Text: "not held", Class: "not-held"}
				}
				t.put(s.Name+"\x00"+x.Message, s.Name, x.Message, i, c)
			}
		}
	}
	return t.list(func(string, *compareRow) bool { return true }, compareCell{Text: "not checked", Class: "not-checked", Title: "the step did not run"})
}

// minDuration is the shortest step duration worth comparing: a query's
// milliseconds say nothing about the lab.
const minDuration = 1.0

// figures is each measured figure per record. Counts and statuses are
// shown where the records differ, durations where a record's step took
// a second or more. A measure's cell names its definition (buildCompare
// refused two), or says the record did not keep it.
func figures(es []*record.Experiment) []compareRow {
	t := newRows(len(es))
	kinds := map[string]string{}
	long := map[string]bool{}
	for i, e := range es {
		if e == nil {
			continue
		}
		for _, f := range record.Figures(e) {
			kinds[f.Key] = f.Kind
			if f.Kind == record.FigureDuration && f.Value >= minDuration {
				long[f.Key] = true
			}
			c := compareCell{Text: f.Text}
			if f.Kind == record.FigureMeasure {
				c.Title = "definition " + record.DefinitionText(f.Definition)
				if f.Definition == "" {
					c.Title += " (a record of an older labgen): compared by the measure's name alone"
				}
			}
			t.put(f.Key, f.Step, f.What, i, c)
			t.byKey[f.Key].Kind = f.Kind
		}
	}
	return t.list(func(key string, r *compareRow) bool {
		if kinds[key] == record.FigureStatus {
			for i := range r.Cells {
				if r.Cells[i].Class == "absent" {
					r.Cells[i].Text = "not run"
				}
			}
		}
		switch kinds[key] {
		case record.FigureCount, record.FigureStatus:
			return !sameCells(r.Cells)
		case record.FigureDuration:
			return long[key]
		}
		return true
	}, compareCell{Text: "—", Class: "absent", Title: "not measured in this record"})
}

func sameCells(cs []compareCell) bool {
	for _, c := range cs {
		if c.Text != cs[0].Text {
			return false
		}
	}
	return true
}

// overlaid draws, for each sampled quantity of an experiment that a
// record's page charts (numeric, not an identifier nor its step kind's
// defaults, changing more than once in at least one record), one chart
// with a line per record, broken where nothing sampled.
func overlaid(es []*record.Experiment, names []string) ([]chart, error) {
	lines := map[string][]line{}
	changes := map[string]bool{}
	units := map[string]string{}
	var order []string
	number, name := 0, ""
	for i, e := range es {
		if e == nil {
			continue
		}
		number, name = e.Number, e.Name
		for _, s := range collect(e, experimentT0(e)) {
			if !s.numeric || s.ident || s.defaults || len(s.xy) < 2 {
				continue
			}
			if _, ok := lines[s.name]; !ok {
				order = append(order, s.name)
			}
			changes[s.name] = changes[s.name] || s.charted()
			if s.unit != "" {
				units[s.name] = s.unit
			}
			lines[s.name] = append(lines[s.name], line{Name: names[i], XY: s.xy, Breaks: s.breaks()})
		}
	}
	var out []chart
	for _, n := range order {
		if len(lines[n]) < 2 || !changes[n] {
			continue
		}
		y := n
		if u := units[n]; u != "" {
			y += " (" + u + ")"
		}
		c, err := lineChart(fmt.Sprintf("%02d %s: %s", number, name, n), y, lines[n], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
