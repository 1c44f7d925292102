package publish

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/labgen/labgen/runtime/record"
)

// A set's page (labgen record publish SET) is about the runs together:
// it opens with one row per measure (the median, the range, over how many
// runs) and one per expectation (in how many runs it held, which not),
// then lists every run, a failed one too, with a link to its own page.

type setView struct {
	S       *record.Set
	Title   string
	Summary string
	Ended   string
	Rule    string
	// Of is the number of runs in the set.
	Of           int
	Measures     []setMeasureView
	Gaps         []record.SetGap
	Expectations []setExpectationView
	Runs         []setRunView
	Compare      string
}

type setMeasureView struct {
	Exp, Name, Title string
	Median, Range, N string
	// Partly: not every run measured it.
	Partly bool
	Values []string
}

type setExpectationView struct {
	Exp, Step, Message, Condition string
	Held                          string
	// Class is held (in every run), not-held (not in some) or
	// not-checked (held wherever evaluated, not evaluated in some).
	Class string
	Not   string
}

type setRunView struct {
	N                  int
	ID, Page, Status   string
	Why, Started, Took string
	Summary            string
	// Class is the status's badge class.
	Class string
}

// SetPage is the HTML page of a set; pages names each run's page ("" for
// a run without one) and compare the comparison page ("" when there is
// none).
func SetPage(s *record.Set, pages []string, compare string) ([]byte, error) {
	v := &setView{S: s, Title: s.Lab.Title, Summary: s.Summary(), Of: len(s.Runs), Compare: compare, Gaps: s.Gaps()}
	if v.Title == "" {
		v.Title = s.Lab.Name
	}
	if s.Ended != nil {
		v.Ended = fmt.Sprintf("%s (%s)", stamp(*s.Ended), record.Duration(s.Ended.Sub(s.Started).Milliseconds()))
	}
	v.Rule = "a step or a job submission failed"
	if s.Strict {
		v.Rule += "; under --strict also an expectation not held, a blind one, or one no control showed able to fail"
	}
	for _, m := range s.Measures {
		mv := setMeasureView{Exp: fmt.Sprintf("%02d", m.Number), Name: m.Name, Title: m.Title, Median: "not measured",
			N: fmt.Sprintf("%d of %d", m.N, len(s.Runs)), Partly: m.N < len(s.Runs)}
		if m.N > 0 {
			mv.Median = record.Measure{Value: m.Median, Unit: m.Unit}.Text()
			mv.Range = m.Range(m.Unit)
		}
		for _, x := range m.Values {
			if x == nil {
				mv.Values = append(mv.Values, "–")
				continue
			}
			mv.Values = append(mv.Values, record.Measure{Value: x}.Text())
		}
		v.Measures = append(v.Measures, mv)
	}
	for _, x := range s.Expectations {
		var not []string
		if len(x.NotHeld) > 0 {
			not = append(not, "not held in run "+runs(x.NotHeld))
		}
		if len(x.NotEvaluated) > 0 {
			not = append(not, "not evaluated in run "+runs(x.NotEvaluated))
		}
		class := "held"
		switch {
		case len(x.NotHeld) > 0:
			class = "not-held"
		case x.Held < x.Of:
			class = "not-checked"
		}
		v.Expectations = append(v.Expectations, setExpectationView{Exp: fmt.Sprintf("%02d", x.Number), Step: x.Step, Message: x.Message,
			Condition: x.Condition, Held: x.Count(), Class: class, Not: strings.Join(not, "; ")})
	}
	recs := s.Records()
	for i, r := range s.Runs {
		rv := setRunView{N: r.N, ID: r.ID, Status: r.Status, Why: r.Why, Class: map[string]string{record.SetRunOK: "st-ok", record.SetRunFailed: "st-error"}[r.Status]}
		if rv.Class == "" {
			rv.Class = "st-skipped"
		}
		if i < len(pages) {
			rv.Page = pages[i]
		}
		if !r.Started.IsZero() {
			rv.Started = stamp(r.Started)
		}
		if r.Ended != nil && !r.Started.IsZero() {
			rv.Took = record.Duration(r.Ended.Sub(r.Started).Milliseconds())
		}
		if i < len(recs) && recs[i] != nil {
			rv.Summary = recs[i].Count().Summary()
		}
		v.Runs = append(v.Runs, rv)
	}
	var b bytes.Buffer
	err := tmpl.ExecuteTemplate(&b, "set", v)
	return b.Bytes(), err
}

func runs(ns []int) string {
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprint(n))
	}
	return strings.Join(out, ", ")
}

// WriteSet publishes a set into dir: index.html, the set's page; a page
// per run that left a record (<id>.html); and compare.html, the records
// side by side, when there are two or more. It returns the files
// written, as Write does, and writes nothing outside dir.
func WriteSet(dir string, s *record.Set) ([]string, error) {
	var rs []*record.Record
	var at []int
	for i, r := range s.Records() {
		if r != nil {
			rs = append(rs, r)
			at = append(at, i)
		}
	}
	names, err := pageNames(rs)
	if err != nil {
		return nil, err
	}
	if err := oneLab(rs); err != nil {
		return nil, err
	}
	w, err := newPageWriter(dir)
	if err != nil {
		return nil, err
	}
	defer w.close()
	if err := w.recordPages(rs, names); err != nil {
		return w.written, err
	}
	pages := make([]string, len(s.Runs))
	for i := range rs {
		pages[at[i]] = names[i] + ".html"
	}
	compare := ""
	if len(rs) > 1 {
		b, err := Comparison(rs, names)
		if err != nil {
			return w.written, err
		}
		compare = "compare.html"
		if err := w.put(compare, b); err != nil {
			return w.written, err
		}
	}
	b, err := SetPage(s, pages, compare)
	if err != nil {
		return w.written, err
	}
	return w.written, w.put("index.html", b)
}
