package publish

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/labgen/labgen/runtime/record"
)

// A sweep's page (labgen sweep's index.html) is about the variants, not
// the runs: for each measure, its median, least and greatest value over
// a variant's repeats (as a set of runs has them), and a chart of it
// against the swept variable; for each compare step, the declared and
// observed distributions of every variant overlaid. The records
// themselves are compared side by side on the comparison page it links
// to.

// SweepVariant is one point of a sweep: its name, the values of the
// swept variables, and the records of its runs (its repeats).
type SweepVariant struct {
	Name    string
	Values  []string
	Records []*record.Record
	// Pages are the records' pages, in Records' order.
	Pages []string
	// Failed counts runs that left no record.
	Failed int
}

type sweepView struct {
	Lab, Title string
	Swept      []string
	Variants   []sweepVariantView
	Measures   []sweepMeasure
	Charts     []chart
	Dists      []chart
	Compare    string
	// Shared: the variants ran on one stack (a sweep without --fresh);
	// the page must not say each was fresh.
	Shared bool
}

type sweepVariantView struct {
	Name   string
	Values []string
	Runs   []sweepRun
	Failed int
}

type sweepRun struct{ ID, Page, Status string }

// sweepMeasure is one measure of one experiment, a cell per variant.
type sweepMeasure struct {
	Exp, Name, Title, Unit string
	// Definition is the measure's, the same in every record that kept
	// one (Sweep refuses two); "" when none did.
	Definition string
	Cells      []string
}

// Sweep renders a sweep's page; swept names the swept variables (each
// variant's Values in that order) and compare is the comparison page's
// file name ("" when there is none); shared says the variants ran one
// after another on one stack.
func Sweep(swept []string, vs []SweepVariant, compare string, shared bool) ([]byte, error) {
	v := &sweepView{Swept: swept, Compare: compare, Shared: shared}
	for _, sv := range vs {
		row := sweepVariantView{Name: sv.Name, Values: sv.Values, Failed: sv.Failed}
		for i, r := range sv.Records {
			if v.Lab == "" {
				v.Lab, v.Title = r.Lab.Name, r.Lab.Title
			}
			page := ""
			if i < len(sv.Pages) {
				page = sv.Pages[i]
			}
			row.Runs = append(row.Runs, sweepRun{ID: r.ID, Page: page, Status: r.Status})
		}
		v.Variants = append(v.Variants, row)
	}
	if v.Title == "" {
		v.Title = v.Lab
	}

	// A variant's values of a measure are aggregated, and set beside
	// another variant's, only where they measure the same thing.
	var uses []record.MeasureUse
	for _, sv := range vs {
		for i, r := range sv.Records {
			holder := sv.Name
			if len(sv.Records) > 1 {
				holder = fmt.Sprintf("%s (run %d, record %s)", sv.Name, i+1, r.ID)
			}
			uses = append(uses, record.MeasureUses([]*record.Record{r}, []string{holder})...)
		}
	}
	if err := record.CheckDefinitions(uses); err != nil {
		return nil, err
	}

	// The measures, in the order the records list them; each variant's
	// runs summarised as a set's are (record.MeasureStats).
	var order []string
	meta := map[string]sweepMeasure{}
	vals := map[string][]record.SetMeasure{}
	for i, sv := range vs {
		for _, m := range record.MeasureStats(sv.Records) {
			if _, ok := meta[m.Key]; !ok {
				order = append(order, m.Key)
				meta[m.Key] = sweepMeasure{Exp: record.ExperimentLabel(m.Number, m.Experiment), Name: m.Name, Title: m.Title, Unit: m.Unit}
				vals[m.Key] = make([]record.SetMeasure, len(vs))
			}
			if sm := meta[m.Key]; sm.Definition == "" {
				sm.Definition = m.Definition
				meta[m.Key] = sm
			}
			vals[m.Key][i] = m
		}
	}
	xs, xLabel := sweepAxis(swept, vs)
	for _, k := range order {
		m := meta[k]
		for _, s := range vals[k] {
			t := s.Text(m.Unit)
			if n := len(s.NotMeasured); n > 0 && s.N > 0 {
				t += fmt.Sprintf("; not measured in %d", n)
			}
			m.Cells = append(m.Cells, t)
		}
		v.Measures = append(v.Measures, m)
		c, ok, err := measureChart(m, vals[k], xs, xLabel)
		if err != nil {
			return nil, err
		}
		if ok {
			v.Charts = append(v.Charts, c)
		}
	}
	dists, err := distributions(vs)
	if err != nil {
		return nil, err
	}
	v.Dists = dists
	var b bytes.Buffer
	err = tmpl.ExecuteTemplate(&b, "sweep", v)
	return b.Bytes(), err
}

// sweepAxis places the variants on the x axis: at the value of the one
// swept variable when every value is a number or a duration (seconds),
// else at their position in the table.
func sweepAxis(swept []string, vs []SweepVariant) ([]float64, string) {
	xs := make([]float64, len(vs))
	numeric := len(swept) == 1
	unit := ""
	for i, v := range vs {
		if !numeric || len(v.Values) == 0 {
			numeric = false
			break
		}
		s := strings.Trim(v.Values[0], `"`)
		if d, err := time.ParseDuration(s); err == nil {
			xs[i], unit = d.Seconds(), " (s)"
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			numeric = false
			break
		}
		xs[i] = f
	}
	if numeric {
		return xs, swept[0] + unit
	}
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs, "variant (as in the table)"
}

// measureChart draws a measure against the swept variable: the median
// of each variant, and its least and greatest value when a variant ran
// more than once. Fewer than two variants measured: no chart.
func measureChart(m sweepMeasure, ss []record.SetMeasure, xs []float64, xLabel string) (chart, bool, error) {
	var med, lo, hi plotter.XYs
	repeats := false
	for i, s := range ss {
		if s.N == 0 {
			continue
		}
		med = append(med, plotter.XY{X: xs[i], Y: *s.Median})
		lo = append(lo, plotter.XY{X: xs[i], Y: *s.Min})
		hi = append(hi, plotter.XY{X: xs[i], Y: *s.Max})
		repeats = repeats || s.N > 1
	}
	if len(med) < 2 {
		return chart{}, false, nil
	}
	for _, xy := range []plotter.XYs{med, lo, hi} {
		sort.Slice(xy, func(i, j int) bool { return xy[i].X < xy[j].X })
	}
	// The measure's name on the axis and in the title; its title (a
	// sentence) heads the table's row.
	y := m.Name
	if m.Unit != "" {
		y += " (" + m.Unit + ")"
	}
	lines := []line{{Name: "median", XY: med}}
	if repeats {
		lines = append(lines, line{Name: "least", XY: lo}, line{Name: "greatest", XY: hi})
	}
	c, err := lineChartX(fmt.Sprintf("%s: %s", m.Exp, m.Name), xLabel, y, lines, nil)
	return c, true, err
}

// distributions overlays, for each compare step, every variant's
// observed distribution (its first run's values, as a cumulative share)
// and the distribution its producer declared: generator input against
// what was observed, across the sweep.
func distributions(vs []SweepVariant) ([]chart, error) {
	type key struct{ exp, step string }
	var order []key
	lines := map[key][]line{}
	titles := map[key]string{}
	for _, sv := range vs {
		if len(sv.Records) == 0 {
			continue
		}
		for _, e := range sv.Records[0].Experiments {
			for _, s := range e.Steps {
				c := s.Compare
				if c == nil || len(c.Values) < 2 || len(c.Bins) == 0 {
					continue
				}
				k := key{record.ExperimentLabel(e.Number, e.Name), s.Name}
				if _, ok := lines[k]; !ok {
					order = append(order, k)
					x := c.Column
					if c.Unit != "" {
						x += " (" + c.Unit + ")"
					}
					titles[k] = x
				}
				lines[k] = append(lines[k],
					line{Name: sv.Name + " observed", XY: observedCDF(c.Values)},
					line{Name: sv.Name + " declared", XY: declaredCDF(c.Bins)})
			}
		}
	}
	var out []chart
	for _, k := range order {
		if len(lines[k]) < 4 {
			continue // one variant: its own page shows it
		}
		c, err := lineChartX(fmt.Sprintf("%s / %s: observed and declared, per variant", k.exp, k.step), titles[k], "share of values at most x", lines[k], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// observedCDF is the empirical distribution of the values: at each value,
// the share of values at most it.
func observedCDF(values []float64) plotter.XYs {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	xy := make(plotter.XYs, 0, len(v))
	for i, x := range v {
		if i+1 < len(v) && v[i+1] == x {
			continue
		}
		xy = append(xy, plotter.XY{X: x, Y: float64(i+1) / float64(len(v))})
	}
	return xy
}

// declaredCDF is the declared distribution at the bins' edges.
func declaredCDF(bins []record.Bin) plotter.XYs {
	total := 0.0
	for _, b := range bins {
		total += b.Declared
	}
	if total <= 0 || math.IsNaN(total) {
		return nil
	}
	xy := plotter.XYs{{X: bins[0].Lo, Y: 0}}
	sum := 0.0
	for _, b := range bins {
		sum += b.Declared
		xy = append(xy, plotter.XY{X: b.Hi, Y: sum / total})
	}
	return xy
}
