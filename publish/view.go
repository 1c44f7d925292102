package publish

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
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
}

type expView struct {
	E      *record.Experiment
	Steps  []stepView
	Charts []chart
	// Recovery is the measured recovery, when the experiment stopped and
	// started a service and sampled a job's state.
	Recovery *recovery
	More     int
}

type stepView struct {
	N int
	S *record.Step
	// SampleCols and SampleRows are the samples as a table.
	SampleCols []string
	SampleRows [][]string
	// Compare is the histogram of a compare step: observed vs declared.
	Compare *chart
}

// recovery is what the record shows of a worker interruption, as
// measured: when the service stopped and started, and when the job ran
// again.
type recovery struct {
	Service            string
	Stopped, Started   time.Time
	Running            time.Time
	HasStart, Recovers bool
	// ToRunning is from the stop to running again; AfterStart from the
	// start.
	ToRunning, AfterStart time.Duration
	Held                  string
	States                []string
}

func recordView(r *record.Record) (*pageView, error) {
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
	for _, e := range r.Experiments {
		ev := expView{E: e, More: e.Total - len(e.Steps)}
		if e.Status == record.ExpSkipped {
			ev.More = 0
		}
		for i, s := range e.Steps {
			sv := stepView{N: i + 1, S: s}
			sv.SampleCols, sv.SampleRows = sampleTable(s)
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
		charts, rec, err := experimentCharts(e)
		if err != nil {
			return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		ev.Charts, ev.Recovery = charts, rec
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
	for _, s := range r.Sessions {
		add("Run", fmt.Sprintf("%s %s: %s", stamp(s.Started), s.Command, s.Status))
	}
	add("labgen", r.Labgen)
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
	}
	for _, i := range r.Images {
		label := "Image"
		if r.Stack != nil && r.Stack.Face == "native" {
			label = "Image (compose; not run here)"
		}
		add(label, i.Component+": "+i.Image)
	}
	for _, j := range r.Jobs {
		val := j.How
		if j.ID != "" {
			val = j.ID + " (" + j.How + ")"
		}
		if j.Error != "" {
			val += ": " + j.Error
		}
		add("Flink job "+j.Name, val)
	}
	for _, e := range r.Endpoints {
		add(e.Name, e.Address)
	}
	l := r.Limits
	add("Limits", fmt.Sprintf("%d rows per query unless a step says otherwise; step timeout %s", l.MaxRows, l.StepTimeout))
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

func sampleTable(s *record.Step) ([]string, [][]string) {
	if len(s.Samples) == 0 {
		return nil, nil
	}
	return s.SampleTable()
}

// expSeries is a series of an experiment: points from every step that
// samples the same name, on the experiment's clock.
type expSeries struct {
	name    string
	group   string
	numeric bool
	xy      plotter.XYs
	texts   []string
}

// collect gathers an experiment's samples by name, x in seconds since t0.
func collect(e *record.Experiment, t0 time.Time) []*expSeries {
	byName := map[string]*expSeries{}
	var order []string
	for _, s := range e.Steps {
		for _, x := range s.Series() {
			es, ok := byName[x.Name]
			if !ok {
				group, _, _ := strings.Cut(x.Name, " / ")
				es = &expSeries{name: x.Name, group: group, numeric: true}
				byName[x.Name] = es
				order = append(order, x.Name)
			}
			es.numeric = es.numeric && x.Numeric
			for _, p := range x.Points {
				sec := p.At.Sub(t0).Seconds()
				switch {
				case p.Num != nil:
					es.xy = append(es.xy, plotter.XY{X: sec, Y: *p.Num})
					es.texts = append(es.texts, "")
				case p.Text != nil:
					es.xy = append(es.xy, plotter.XY{X: sec})
					es.texts = append(es.texts, *p.Text)
				}
			}
		}
	}
	out := make([]*expSeries, 0, len(order))
	for _, n := range order {
		if len(byName[n].xy) > 0 {
			out = append(out, byName[n])
		}
	}
	return out
}

// experimentCharts draws an experiment's samples: one line chart per
// sampled name (its keys as lines), a timeline per text series (a job's
// state), with the experiment's compose steps as markers; and the
// recovery, when a service was stopped and the job's state sampled.
func experimentCharts(e *record.Experiment) ([]chart, *recovery, error) {
	if len(e.Steps) == 0 {
		return nil, nil, nil
	}
	t0 := time.Time{}
	for _, s := range e.Steps {
		if !s.Started.IsZero() && (t0.IsZero() || s.Started.Before(t0)) {
			t0 = s.Started
		}
	}
	series := collect(e, t0)
	if len(series) == 0 {
		return nil, nil, nil
	}
	var markers []marker
	for _, s := range e.Steps {
		if s.Kind == schemas.StepCompose && s.Ran != nil && s.Status != record.StatusSkipped {
			markers = append(markers, marker{X: s.Started.Sub(t0).Seconds(), Label: strings.TrimPrefix(s.Ran.Command, "docker compose ")})
		}
	}
	rec := measureRecovery(e)
	var charts []chart
	groups := map[string][]line{}
	var gorder []string
	for _, s := range series {
		if !s.numeric {
			continue
		}
		if _, ok := groups[s.group]; !ok {
			gorder = append(gorder, s.group)
		}
		name := s.name
		if g, rest, ok := strings.Cut(s.name, " / "); ok && g == s.group {
			name = rest
		}
		xy := append(plotter.XYs(nil), s.xy...)
		sort.SliceStable(xy, func(i, j int) bool { return xy[i].X < xy[j].X })
		groups[s.group] = append(groups[s.group], line{Name: name, XY: xy})
	}
	for _, s := range series {
		if s.numeric {
			continue
		}
		levels := stateLevels(s.texts)
		lv := map[string]int{}
		for i, l := range levels {
			lv[l] = i
		}
		var xy plotter.XYs
		for i, p := range s.xy {
			if s.texts[i] == "" {
				continue
			}
			xy = append(xy, plotter.XY{X: p.X, Y: float64(lv[s.texts[i]])})
		}
		ms := markers
		title := s.name + " over time"
		if rec != nil && rec.Recovers && s.name == "state" {
			ms = append(append([]marker(nil), markers...), marker{X: rec.Running.Sub(t0).Seconds(), Label: fmt.Sprintf("running again (+%s)", secs(rec.ToRunning))})
			title = fmt.Sprintf("Job state: running again %s after the stop", secs(rec.ToRunning))
		}
		c, err := timelineChart(title, []line{{Name: s.name, XY: xy}}, levels, ms)
		if err != nil {
			return nil, nil, err
		}
		charts = append(charts, c)
	}
	for _, g := range gorder {
		c, err := lineChart(g+" over time", g, groups[g], markers)
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
	return charts, rec, nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// stateLevels orders a timeline's states: RUNNING on top, the others
// below in the order first seen.
func stateLevels(texts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		if t != "" && t != "RUNNING" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return append(out, "RUNNING")
}

// measureRecovery finds a compose stop, the start after it, and the first
// moment after the start that the job counted as running again: the
// condition of the first wait … until after the start that held (its last
// sample), else the first sample whose state is RUNNING. Measured, not
// proven: it says when the probe saw it.
func measureRecovery(e *record.Experiment) *recovery {
	var rec *recovery
	for i, s := range e.Steps {
		if s.Kind != schemas.StepCompose || s.Ran == nil || s.Status != record.StatusOK {
			continue
		}
		f := strings.Fields(s.Ran.Command)
		if len(f) < 2 {
			continue
		}
		action, svc := f[len(f)-2], f[len(f)-1]
		switch {
		case action == "stop" && rec == nil:
			rec = &recovery{Service: svc, Stopped: s.Started}
		case action == "start" && rec != nil && svc == rec.Service && !rec.HasStart:
			rec.Started, rec.HasStart = s.Started, true
			for _, w := range e.Steps[i+1:] {
				if w.Kind == schemas.StepWait && len(w.Samples) > 0 && w.Status == record.StatusOK && strings.Contains(w.Ran.Detail, "until") {
					last := w.Samples[len(w.Samples)-1]
					rec.Running, rec.Recovers, rec.Held = last.At, true, w.Name
					break
				}
			}
			if !rec.Recovers {
				for _, w := range e.Steps[i+1:] {
					for _, sm := range w.Samples {
						if string(sm.Values["state"]) == `"RUNNING"` {
							rec.Running, rec.Recovers = sm.At, true
							break
						}
					}
					if rec.Recovers {
						break
					}
				}
			}
		}
	}
	if rec == nil || !rec.HasStart {
		return rec
	}
	if rec.Recovers {
		rec.ToRunning = rec.Running.Sub(rec.Stopped)
		rec.AfterStart = rec.Running.Sub(rec.Started)
	}
	return rec
}

// recoveryBar shows the interruption as two spans on one axis: the
// service down, and the job waiting to run after its start.
func recoveryBar(rec *recovery) (chart, error) {
	down := rec.Started.Sub(rec.Stopped).Seconds()
	lines := []line{
		{Name: rec.Service + " stopped", XY: plotter.XYs{{X: 0, Y: 1}, {X: down, Y: 1}}},
		{Name: "job not yet running after the start", XY: plotter.XYs{{X: down, Y: 0}, {X: down + rec.AfterStart.Seconds(), Y: 0}}},
	}
	c, err := timelineChart(fmt.Sprintf("Time to running: %s (%s after the start)", secs(rec.ToRunning), secs(rec.AfterStart)), lines, []string{"job waiting", "service down"}, nil)
	return c, err
}
