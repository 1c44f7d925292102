package publish

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/labgen/labgen/runtime/record"
)

type headRow struct{ Key, Value string }

type pageView struct {
	R           *record.Record
	Title       string
	StatusText  string
	Summary     string
	Head        []headRow
	Experiments []expView
	Pending     []string
	// Answers open the page: one per experiment, from the record's
	// Answers, as record.md's.
	Answers []record.Answer
}

type expView struct {
	E      *record.Experiment
	Steps  []stepView
	Charts []chart
	// Notes are the sampled series that are no chart: constant ones, and
	// text that changed (a status), one line each.
	Notes []seriesNote
	// Recovery is the measured recovery, when the experiment stopped and
	// started a service; RecoveryText its paragraph, the same as
	// record.md's.
	Recovery     *record.Interruption
	RecoveryText string
	More         int
}

type stepView struct {
	N int
	S *record.Step
	// Tables are the step's result tables, their cells cut.
	Tables []tableView
	// SampleCols and SampleRows are the samples as a table.
	SampleCols []string
	SampleRows [][]cellView
	// Compare is the histogram of a compare step: observed vs declared.
	Compare *chart
	// FoldSQL puts the step's SQL in a <details> titled SQLSummary: long
	// SQL, or SQL the page showed before (a job's, at every batch step).
	FoldSQL    bool
	SQLSummary string
}

// seriesNote is a sampled series in words: "0 throughout (20 samples)".
type seriesNote struct {
	Name, Text string
}

// recordView is the page of read, the record as it was read: the page
// shows a copy of it with every text cut (capTexts), and its tables cut
// cell by cell.
func recordView(read *record.Record) (*pageView, error) {
	r, err := capTexts(read)
	if err != nil {
		return nil, err
	}
	v := &pageView{R: r, Title: r.Lab.Title}
	if v.Title == "" {
		v.Title = r.Lab.Name
	}
	v.StatusText = r.Status
	switch r.Status {
	case record.RunRunning:
		v.StatusText = "in progress (or stopped before it could say so)"
	case record.RunInterrupted:
		v.StatusText = "interrupted; labgen run --resume continues it"
	}
	v.Summary = r.Count().Summary()
	v.Head = head(r)
	v.Answers = r.Answers()
	shown := map[string]string{}
	for ei, e := range r.Experiments {
		ev := expView{E: e, More: e.Total - len(e.Steps)}
		if e.Status == record.ExpSkipped {
			ev.More = 0
		}
		for i, s := range e.Steps {
			sv := stepView{N: i + 1, S: s, Tables: stepTables(read.Experiments[ei].Steps[i], r.Limits)}
			sv.SampleCols, sv.SampleRows = sampleTable(s, r.Limits)
			if s.Ran != nil && s.Ran.SQL != "" {
				sv.FoldSQL, sv.SQLSummary = foldSQL(s.Ran.SQL, shown[s.Ran.SQL])
				if _, ok := shown[s.Ran.SQL]; !ok {
					shown[s.Ran.SQL] = fmt.Sprintf("%02d %s / %s", e.Number, e.Name, s.Name)
				}
			}
			if c := s.Compare; c != nil && len(c.Bins) > 0 {
				x := c.Column
				if c.Unit != "" {
					x += " (" + c.Unit + ")"
				}
				ch, err := histogram(fmt.Sprintf("%s: %d observed vs declared %s", c.Of, len(c.Values), c.Declared), x, c.Bins)
				if err != nil {
					return nil, fmt.Errorf("experiment %s, step %s: %w", e.Name, s.Name, err)
				}
				sv.Compare = &ch
			}
			ev.Steps = append(ev.Steps, sv)
		}
		ev.Recovery = record.Recovery(e)
		ev.RecoveryText = ev.Recovery.Markdown()
		charts, notes, err := experimentCharts(e, ev.Recovery)
		if err != nil {
			return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		ev.Charts, ev.Notes = charts, notes
		v.Experiments = append(v.Experiments, ev)
	}
	for _, n := range r.Selected {
		if r.Experiment(n) == nil {
			v.Pending = append(v.Pending, n)
		}
	}
	return v, nil
}

func head(r *record.Record) []headRow {
	var h []headRow
	add := func(k, v string) { h = append(h, headRow{k, v}) }
	add("Lab", fmt.Sprintf("%s (%s)", r.Lab.Name, r.Lab.Hash))
	add("Record", r.ID)
	add("Started", stamp(r.Started))
	if r.Ended != nil {
		add("Ended", fmt.Sprintf("%s (%s)", stamp(*r.Ended), record.Duration(r.Ended.Sub(r.Started).Milliseconds())))
	}
	for _, row := range r.RunRows() {
		add(row.Label, row.Value)
	}
	add("labgen", r.LabgenText())
	add("Seed", fmt.Sprint(r.Seed))
	for _, x := range r.Variables {
		val := compact(x.Value)
		if x.Source != "" && x.Source != "default" {
			val += " (" + x.Source + ")"
		}
		add("var."+x.Name, val)
	}
	if r.Stack != nil {
		switch r.Stack.Face {
		case "native":
			add("Stack", "native: every service a local process, no Docker")
		default:
			add("Stack", r.Stack.Face)
		}
		for _, s := range r.Stack.StandIns {
			add("Stand-in", s)
		}
		for _, s := range r.Stack.Exits {
			add("Exited during the run", s)
		}
	}
	for _, i := range r.Images {
		label := "Image"
		if r.Stack != nil && r.Stack.Face == "native" {
			label = "Image (compose; not run here)"
		}
		add(label, i.Component+": "+i.Image)
	}
	for _, p := range r.ProvenanceRows() {
		add(p.Label, p.Value)
	}
	for _, j := range r.Jobs {
		val := j.How
		if j.ID != "" {
			val = j.ID + " (" + j.How + ")"
		}
		if j.Replaced != "" {
			val += "; it replaced " + j.Replaced + ", whose script differed from the one rendered now"
		}
		if j.Error != "" {
			val += ": " + j.Error
		}
		add("Flink job "+j.Name, val)
	}
	for _, e := range r.Endpoints {
		add(e.Name, e.Address)
	}
	add("Limits", fmt.Sprintf("%s; other texts on this page cut at %d characters", r.Limits.Describe(), textMax(r.Limits)))
	return h
}

func compact(b json.RawMessage) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func sampleTable(s *record.Step, lim record.Limits) ([]string, [][]cellView) {
	if len(s.Samples) == 0 {
		return nil, nil
	}
	cols, rows := s.SampleTable()
	return sampleCells(cols, rows, lim)
}

// foldSQL says whether a step's SQL goes into a <details>, and its
// summary: SQL of more than foldLines lines or foldChars characters, or a
// multi-line statement the page showed before (seenAt names where).
func foldSQL(sql, seenAt string) (bool, string) {
	sql = strings.TrimSpace(sql)
	lines := strings.Count(sql, "\n") + 1
	long := lines > foldLines || len(sql) > foldChars
	if !long && (seenAt == "" || lines == 1) {
		return false, ""
	}
	sum := "SQL"
	// A rendered job's first line names its file: "-- sql/flink/x.sql".
	if first, _, _ := strings.Cut(sql, "\n"); strings.HasPrefix(first, "-- ") && len(first) < 80 {
		sum += " " + strings.TrimPrefix(first, "-- ")
	}
	sum += fmt.Sprintf(", %d lines", lines)
	if seenAt != "" {
		sum += ", the same as at " + seenAt
	}
	return true, sum
}

// SQL longer than this is folded.
const (
	foldLines = 15
	foldChars = 1200
)

// expSeries is a series of an experiment: points from every step that
// samples the same name, on the experiment's clock.
type expSeries struct {
	name    string
	group   string
	numeric bool
	// ident: an identifier (record.IdentifierSeries in any of its steps),
	// never charted or compared.
	ident bool
	// defaults: sampled by the defaults of its step's kind (the rows a
	// pick query returned, a job's counters), which no lab asked about:
	// never charted, left to the samples table and the notes.
	defaults bool
	// unit is the unit the series is shown in ("MiB", "% of time"), as
	// the Findings show the same quantity; "" when it is the lab's own.
	unit  string
	xy    plotter.XYs
	texts []string
	// seg tells the runs the points are from apart: points of one step,
	// sampled without a failed or empty run between them, share a seg;
	// a line breaks between two segs (the time between was not sampled).
	seg []int
}

// collect gathers an experiment's samples by name, x in seconds since t0.
// A name a lab gave its samples is one quantity in every step that samples
// it (rows / mysql_orders before, during and after a stop), and so is a
// job's state, checkpoints or restarts. A query that kept its kind's
// defaults names them by its result's columns, which other queries share:
// such a series is one per query, and where two shown share a name, each
// says the first step that sampled it.
func collect(e *record.Experiment, t0 time.Time) []*expSeries {
	byKey := map[string]*expSeries{}
	var order []string
	first := map[string]string{}
	for si, s := range e.Steps {
		source := ""
		defaults := strings.HasSuffix(s.Sampled, record.DefaultSamples)
		if defaults {
			// A kind's defaults are a series of their own, never one with
			// a series a lab named alike.
			source = "\x00defaults"
			if s.Ran != nil {
				source += s.Ran.SQL
			}
		}
		units := sampleUnits(s.Sampled)
		for _, x := range s.Series() {
			key := x.Name + "\x00" + source
			es, ok := byKey[key]
			if !ok {
				group, _, _ := strings.Cut(x.Name, " / ")
				es = &expSeries{name: x.Name, group: group, numeric: true, defaults: defaults}
				byKey[key] = es
				order = append(order, key)
				first[key] = s.Name
			}
			es.numeric = es.numeric && x.Numeric
			es.ident = es.ident || s.IdentifierSeries(x)
			u, hasUnit := units[es.group]
			if hasUnit {
				es.unit = u.unit
			}
			gap := 0
			for _, p := range x.Points {
				sec := p.At.Sub(t0).Seconds()
				seg := si<<16 | gap
				switch {
				case p.Num != nil:
					y := *p.Num
					text := p.ValueText()
					if hasUnit {
						y *= u.scale
						text = unitText(y)
					}
					es.xy = append(es.xy, plotter.XY{X: sec, Y: y})
					es.texts = append(es.texts, text)
					es.seg = append(es.seg, seg)
				case p.Text != nil:
					es.xy = append(es.xy, plotter.XY{X: sec})
					es.texts = append(es.texts, *p.Text)
					es.seg = append(es.seg, seg)
				default:
					// A failed run or NULL: a gap in the line.
					gap++
				}
			}
		}
	}
	// Only series that can show (more than a point, no identifier) need
	// telling apart.
	names := map[string]int{}
	for _, k := range order {
		if es := byKey[k]; !es.ident && !es.defaults && len(es.xy) > 1 {
			names[es.name]++
		}
	}
	out := make([]*expSeries, 0, len(order))
	for _, k := range order {
		es := byKey[k]
		if len(es.xy) == 0 {
			continue
		}
		if names[es.name] > 1 && !es.ident && !es.defaults && len(es.xy) > 1 {
			es.name += " (step " + first[k] + ")"
			es.group += " (step " + first[k] + ")"
		}
		sortSeries(es)
		out = append(out, es)
	}
	return out
}

// sortSeries puts a series' points in time order (several steps sample
// one name).
func sortSeries(s *expSeries) {
	idx := make([]int, len(s.xy))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.xy[idx[a]].X < s.xy[idx[b]].X })
	xy, texts, seg := make(plotter.XYs, len(idx)), make([]string, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		xy[i], texts[i], seg[i] = s.xy[j], s.texts[j], s.seg[j]
	}
	s.xy, s.texts, s.seg = xy, texts, seg
}

// breaks are the points where the series' line starts again: where the
// point is of another step than the one before, or a failed or empty
// run lies between them.
func (s *expSeries) breaks() []int {
	var out []int
	for i := 1; i < len(s.seg); i++ {
		if s.seg[i] != s.seg[i-1] {
			out = append(out, i)
		}
	}
	return out
}

// changes counts the times a series' value changes.
func (s *expSeries) changes() int {
	n := 0
	for i := 1; i < len(s.texts); i++ {
		if s.texts[i] != s.texts[i-1] {
			n++
		}
	}
	return n
}

// constant tells whether every point of a series has one value.
func (s *expSeries) constant() bool {
	for _, t := range s.texts {
		if t != s.texts[0] {
			return false
		}
	}
	return true
}

// charted tells whether a series is a chart: a quantity a lab named (not
// an identifier, not its step kind's defaults: the count of rows a pick
// query returned, a job's checkpoints) whose value changes more than
// once. A value that changes once (checkpoints 21 → 22, an order's count
// 0 → 1) is told in words: a line would only join two readings.
func (s *expSeries) charted() bool {
	return s.numeric && !s.ident && !s.defaults && len(s.xy) > 1 && s.changes() > 1
}

// experimentT0 is the start of an experiment's first step: the x origin
// of its charts.
func experimentT0(e *record.Experiment) time.Time {
	t0 := time.Time{}
	for _, s := range e.Steps {
		if !s.Started.IsZero() && (t0.IsZero() || s.Started.Before(t0)) {
			t0 = s.Started
		}
	}
	return t0
}

// experimentCharts draws an experiment's sampled quantities, one line
// chart per sampled name (its keys as lines), with the experiment's
// service steps as markers, and the recovery when there was one. What is
// not a quantity is not drawn: identifiers not at all, a constant series
// or a text that changed (a status) as one line of text each.
func experimentCharts(e *record.Experiment, rec *record.Interruption) ([]chart, []seriesNote, error) {
	if len(e.Steps) == 0 {
		return nil, nil, nil
	}
	t0 := experimentT0(e)
	series := collect(e, t0)
	var markers []marker
	for _, s := range e.Steps {
		if action, svc := record.ServiceAction(s); action != "" && s.Status != record.StatusSkipped {
			markers = append(markers, marker{X: s.Started.Sub(t0).Seconds(), Label: action + " " + svc})
		}
	}
	if rec != nil && rec.Recovers {
		markers = append(markers, marker{X: rec.Running.Sub(t0).Seconds(), Label: "running again"})
	}
	var charts []chart
	groups := map[string][]line{}
	units := map[string]string{}
	var gorder []string
	for _, s := range series {
		if !s.charted() {
			continue
		}
		if _, ok := groups[s.group]; !ok {
			gorder = append(gorder, s.group)
		}
		name := s.name
		if g, rest, ok := strings.Cut(s.name, " / "); ok && g == s.group {
			name = rest
		}
		groups[s.group] = append(groups[s.group], line{Name: name, XY: s.xy, Breaks: s.breaks()})
		if s.unit != "" {
			units[s.group] = s.unit
		}
	}
	for _, g := range gorder {
		y := g
		if u := units[g]; u != "" {
			y += " (" + u + ")"
		}
		c, err := lineChart(g+" over time", y, groups[g], markers)
		if err != nil {
			return nil, nil, err
		}
		charts = append(charts, c)
	}
	if rec != nil && rec.Recovers {
		c, err := recoveryBar(rec)
		if err != nil {
			return nil, nil, err
		}
		charts = append(charts, c)
	}
	return charts, seriesNotes(series), nil
}

// maxChanges bounds the changes of a text series told in words; one that
// changes more often (a timestamp) is left to the samples table.
const maxChanges = 4

// seriesNotes tells in words the series that are not charted but say
// something: a constant series ("0 throughout", of several points), and a
// text that changed a few times ("PENDING from 7.1 s, PAID from 16.3 s").
// Constant series of one group with one value share a line. Identifiers
// and single points are left to the samples tables.
func seriesNotes(series []*expSeries) []seriesNote {
	type key struct{ group, value string }
	var out []seriesNote
	same := map[key]int{}
	// keys are the keys of a group's series that share a note.
	keys := map[int][]string{}
	for _, s := range series {
		if s.ident || len(s.xy) < 2 || s.charted() {
			continue
		}
		val := func(t string) string {
			if s.unit != "" {
				return t + " " + s.unit
			}
			return t
		}
		if s.constant() {
			k := key{s.group, s.texts[0]}
			text := fmt.Sprintf("%s throughout (%d samples, %s–%s)", val(s.texts[0]), len(s.xy), secs(s.xy[0].X), secs(s.xy[len(s.xy)-1].X))
			if i, ok := same[k]; ok && s.group != s.name {
				_, rest, _ := strings.Cut(s.name, " / ")
				keys[i] = append(keys[i], rest)
				continue
			}
			if g, rest, ok := strings.Cut(s.name, " / "); ok {
				same[k] = len(out)
				keys[len(out)] = []string{rest}
				out = append(out, seriesNote{Name: g, Text: text})
				continue
			}
			out = append(out, seriesNote{Name: s.name, Text: text})
			continue
		}
		var parts []string
		for i, t := range s.texts {
			if i == 0 || t != s.texts[i-1] {
				parts = append(parts, fmt.Sprintf("%s from %s", val(t), secs(s.xy[i].X)))
			}
		}
		if len(parts) <= maxChanges+1 {
			out = append(out, seriesNote{Name: s.name, Text: strings.Join(parts, ", ")})
		}
	}
	for i, ks := range keys {
		if len(ks) > 3 {
			ks = []string{ks[0], ks[1], "…", ks[len(ks)-1] + fmt.Sprintf(" (%d series)", len(ks))}
		}
		out[i].Name += " / " + strings.Join(ks, ", ")
	}
	return out
}

func secs(x float64) string { return fmt.Sprintf("%.1f s", x) }

// recoveryBar shows the interruption as spans on one axis: the service
// down, starting, and the job not yet running after it was up.
func recoveryBar(rec *record.Interruption) (chart, error) {
	down := rec.Started.Sub(rec.Stopped).Seconds()
	up := down + rec.StartTook().Seconds()
	run := rec.ToRunning().Seconds()
	lines := []line{
		{Name: rec.Service + " stopped", XY: plotter.XYs{{X: 0, Y: 2}, {X: down, Y: 2}}},
		{Name: rec.Service + " starting", XY: plotter.XYs{{X: down, Y: 1}, {X: up, Y: 1}}},
		{Name: "job not yet running", XY: plotter.XYs{{X: up, Y: 0}, {X: run, Y: 0}}},
	}
	title := fmt.Sprintf("Time to running: %s after the stop (%s after the start, %s after the service was up)",
		record.Seconds(rec.ToRunning()), record.Seconds(rec.AfterStart()), record.Seconds(rec.AfterUp()))
	return timelineChart(title, lines, []string{"job waiting", "service starting", "service down"}, nil)
}

// sampleUnit is how a sampled job field is shown: its value times scale,
// in unit.
type sampleUnit struct {
	unit  string
	scale float64
}

// jobFieldUnits are the fields of a Flink job step's result whose unit
// labgen knows (it computes them), shown as the Findings show them: a
// share of time as %, a checkpoint's size in MiB.
var jobFieldUnits = map[string]sampleUnit{
	"result.backpressure.max":       {"% of time", 100},
	"result.backpressure.busy_max":  {"% of time", 100},
	"result.checkpoints.state_size": {"MiB", 1.0 / (1 << 20)},
}

var sampleExpr = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*) = (result(?:\\.[A-Za-z_][A-Za-z0-9_]*)+)`")

// sampleUnits reads a step's Sampled ("… `busy = result.backpressure.busy_max`,
// …") for the samples that are a job field of a known unit, by name.
func sampleUnits(sampled string) map[string]sampleUnit {
	out := map[string]sampleUnit{}
	for _, m := range sampleExpr.FindAllStringSubmatch(sampled, -1) {
		if u, ok := jobFieldUnits[m[2]]; ok {
			out[m[1]] = u
		}
	}
	return out
}

// unitText is a scaled value as a note shows it: three significant
// digits.
func unitText(v float64) string {
	return strconv.FormatFloat(v, 'g', 3, 64)
}
