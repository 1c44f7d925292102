package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Point is one sampled value: a number, a text (a job state), or SQL
// NULL / a failed run (neither set).
type Point struct {
	// Sample is the index of the sample the point is from.
	Sample int
	At     time.Time
	MS     int64
	Num    *float64
	Text   *string
	// Error is the failure of the run this point is from.
	Error string
}

// Series is one named value over a step's samples. An object value
// (records out per vertex) gives one series per key, "name / key".
type Series struct {
	Name   string
	Points []Point
	// Numeric tells whether every value that is there is a number.
	Numeric bool
}

// Series flattens the step's samples into named series, in name order.
func (s *Step) Series() []Series {
	byName := map[string]*Series{}
	var names []string
	get := func(n string) *Series {
		if x, ok := byName[n]; ok {
			return x
		}
		byName[n] = &Series{Name: n, Numeric: true}
		names = append(names, n)
		return byName[n]
	}
	for i, sm := range s.Samples {
		for _, k := range sortedKeys(sm.Values) {
			flatten(k, sm.Values[k], func(name string, p Point) {
				p.Sample, p.At, p.MS = i, sm.At, sm.MS
				x := get(name)
				if p.Text != nil {
					x.Numeric = false
				}
				x.Points = append(x.Points, p)
			})
		}
		if sm.Error != "" && len(sm.Values) == 0 {
			for _, n := range names {
				byName[n].Points = append(byName[n].Points, Point{Sample: i, At: sm.At, MS: sm.MS, Error: sm.Error})
			}
		}
	}
	sort.Strings(names)
	out := make([]Series, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

func flatten(name string, raw json.RawMessage, emit func(string, Point)) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			emit(name+" / "+k, pointOf(m[k]))
		}
		return
	}
	emit(name, pointOf(v))
}

func pointOf(v any) Point {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return Point{Num: &f}
		}
	case string:
		return Point{Text: &x}
	case bool:
		t := strconv.FormatBool(x)
		return Point{Text: &t}
	case nil:
		return Point{}
	}
	b, _ := json.Marshal(v)
	t := string(b)
	return Point{Text: &t}
}

// ValueText shows a point as a table cell: the number as sampled, the
// text, NULL, or "(failed)".
func (p Point) ValueText() string {
	switch {
	case p.Num != nil:
		return strconv.FormatFloat(*p.Num, 'f', -1, 64)
	case p.Text != nil:
		return *p.Text
	case p.Error != "":
		return "(failed)"
	}
	return "NULL"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SampleTable is a sampling step's samples as a table, for people: a row
// per sample (its time, seconds since the first, each series' value or
// "-"), and an error column only when a sample failed.
func (s *Step) SampleTable() (cols []string, rows [][]string) {
	series := s.Series()
	cols = []string{"at", "s"}
	for _, x := range series {
		cols = append(cols, x.Name)
	}
	errs := s.hasSampleErrors()
	if errs {
		cols = append(cols, "error")
	}
	idx := map[int]map[string]string{}
	for _, x := range series {
		for _, p := range x.Points {
			if idx[p.Sample] == nil {
				idx[p.Sample] = map[string]string{}
			}
			idx[p.Sample][x.Name] = p.ValueText()
		}
	}
	for i, sm := range s.Samples {
		row := []string{sm.At.UTC().Format("15:04:05.000"), fmt.Sprintf("%.1f", float64(sm.MS)/1000)}
		for _, x := range series {
			v, ok := idx[i][x.Name]
			if !ok {
				v = "-"
			}
			row = append(row, v)
		}
		if errs {
			row = append(row, sm.Error)
		}
		rows = append(rows, row)
	}
	return cols, rows
}

func (s *Step) hasSampleErrors() bool {
	for _, sm := range s.Samples {
		if sm.Error != "" {
			return true
		}
	}
	return false
}
