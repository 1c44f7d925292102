package publish

import (
	"fmt"
	"sort"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/labgen/labgen/runtime/record"
)

type compareView struct {
	Lab, Title string
	Records    []compareRecord
	Vars       []varRow
	Diffs      []diffView
	Charts     []chart
}

type compareRecord struct {
	ID, Page, Status, Summary string
}

type varRow struct {
	Name    string
	Values  []string
	Differs bool
}

type diffView struct {
	A, B     string
	Findings []record.Difference
}

func buildCompare(rs []*record.Record, names []string) (*compareView, error) {
	v := &compareView{Lab: rs[0].Lab.Name, Title: rs[0].Lab.Title}
	if v.Title == "" {
		v.Title = v.Lab
	}
	for i, r := range rs {
		v.Records = append(v.Records, compareRecord{ID: names[i], Page: names[i] + ".html", Status: r.Status, Summary: r.Count().Summary()})
	}
	// Variables side by side, in the first record's order, then others'.
	var order []string
	vals := map[string][]string{}
	for i, r := range rs {
		for _, x := range r.Variables {
			if _, ok := vals[x.Name]; !ok {
				order = append(order, x.Name)
				vals[x.Name] = make([]string, len(rs))
				for j := range vals[x.Name] {
					vals[x.Name][j] = "(absent)"
				}
			}
			vals[x.Name][i] = compact(x.Value)
		}
	}
	seed := varRow{Name: "seed"}
	for _, r := range rs {
		seed.Values = append(seed.Values, fmt.Sprint(r.Seed))
	}
	v.Vars = append(v.Vars, differs(seed))
	for _, n := range order {
		v.Vars = append(v.Vars, differs(varRow{Name: n, Values: vals[n]}))
	}
	for i := 1; i < len(rs); i++ {
		v.Diffs = append(v.Diffs, diffView{A: names[0], B: names[i], Findings: record.Diff(rs[0], rs[i])})
	}
	charts, err := overlaid(rs, names)
	if err != nil {
		return nil, err
	}
	v.Charts = charts
	return v, nil
}

func differs(r varRow) varRow {
	for _, x := range r.Values {
		if x != r.Values[0] {
			r.Differs = true
		}
	}
	return r
}

// overlaid draws, for each experiment and numeric sampled series that
// several records have, one chart with a line per record.
func overlaid(rs []*record.Record, names []string) ([]chart, error) {
	type key struct{ exp, series string }
	lines := map[key][]line{}
	var keys []key
	numbers := map[string]int{}
	for i, r := range rs {
		for _, e := range r.Experiments {
			numbers[e.Name] = e.Number
			t0 := time.Time{}
			for _, s := range e.Steps {
				if !s.Started.IsZero() && (t0.IsZero() || s.Started.Before(t0)) {
					t0 = s.Started
				}
			}
			for _, s := range collect(e, t0) {
				if !s.numeric {
					continue
				}
				k := key{e.Name, s.name}
				if _, ok := lines[k]; !ok {
					keys = append(keys, k)
				}
				xy := append(plotter.XYs(nil), s.xy...)
				sort.SliceStable(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
				lines[k] = append(lines[k], line{Name: names[i], XY: xy})
			}
		}
	}
	var out []chart
	for _, k := range keys {
		if len(lines[k]) < 2 {
			continue
		}
		c, err := lineChart(fmt.Sprintf("%02d %s: %s", numbers[k.exp], k.exp, k.series), k.series, lines[k], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
