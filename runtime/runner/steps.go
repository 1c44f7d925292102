package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/kafkaread"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
	"github.com/labgen/labgen/sqlread"
)

// outcome is what executing a step produced.
type outcome struct {
	ran    *record.Ran
	value  cty.Value // cty.NilVal when the step has no result
	output *record.Output
	counts map[string]int64
	err    error
	// status overrides ok / error (a wait that timed out).
	status   string
	attempts int
	// samples are a sampling step's runs; sampled says of what.
	samples *sampler
	sampled string
	// compare is a compare step's values beside the declared distribution.
	compare *record.Compare
}

// runStep runs one step with its captures and expectations.
func (r *Runner) runStep(ctx context.Context, e *schemas.Experiment, s *schemas.Step) *record.Step {
	start := r.now()
	rs := &record.Step{Name: s.Name, Kind: s.Kind, Title: s.Title, Text: s.Text, Note: s.Note, Started: start.UTC()}
	out := r.execute(ctx, e, s)
	rs.DurationMS = r.now().Sub(start).Milliseconds()
	if ctx.Err() != nil {
		return rs
	}
	rs.Ran, rs.Output, rs.Counts, rs.Attempts, rs.Compare = out.ran, out.output, out.counts, out.attempts, out.compare
	if out.samples == nil && len(s.Samples) > 0 && s.Kind != schemas.StepWait {
		// A step that is not a wait samples its one run.
		out.samples = &sampler{start: start}
		r.take(out.samples, e, s, s.Kind, out)
		out.sampled = "its one run: " + sampleDetail(s)
	}
	if out.samples != nil {
		rs.Samples, rs.Sampled = out.samples.samples, out.sampled
	}
	// evalCtx of this step's capture and expect: its result, and its
	// samples when it keeps any.
	stepCtx := func() *hcl.EvalContext {
		c := r.evalCtx(e.Name, out.value)
		if out.samples != nil {
			c.Variables["samples"] = out.samples.value()
		}
		return c
	}
	rs.Status = record.StatusOK
	if out.status != "" {
		rs.Status = out.status
	}
	if out.err != nil {
		rs.Status = record.StatusError
		rs.Error = out.err.Error()
	}
	if out.value != cty.NilVal && rs.Status != record.StatusError {
		for _, c := range s.Captures {
			rc := record.Capture{Name: c.Name, Expr: c.Expr.Source}
			v, diags := c.Expr.Eval(stepCtx())
			switch {
			case diags.HasErrors():
				rc.Error = diagText(diags)
			case v.IsNull():
				rc.Error = "the value is null"
			case !v.IsWhollyKnown():
				rc.Error = "the value is not known"
			case emptyValue(v):
				rc.Error = "the value is empty"
			}
			if rc.Error == "" {
				b, err := json.Marshal(ctyjson.SimpleJSONValue{Value: v})
				if err != nil {
					rc.Error = "the value cannot be stored: " + err.Error()
				} else {
					rc.Value, rc.Display = b, Display(v)
					r.caps.Set(e.Name, s.Name, c.Name, v)
				}
			}
			if rc.Error != "" {
				why := strings.TrimSuffix(rc.Error, ".")
				if size := resultSize(out.counts); size != "" {
					why += "; " + size
				}
				r.missing[key(e.Name, s.Name, c.Name)] = fmt.Sprintf("step %s's capture found nothing (%s)", s.Name, why)
				rs.Status = record.StatusError
				rs.Error = joinErr(rs.Error, fmt.Sprintf("capture %s = `%s` found nothing: %s", c.Name, c.Expr.Source, why))
			}
			rs.Captures = append(rs.Captures, rc)
		}
	} else {
		r.missingAll(e.Name, s, fmt.Sprintf("step %s failed", s.Name))
	}
	for _, x := range s.Expects {
		rx := record.Expectation{Message: x.Message, Condition: x.Condition.Source}
		if out.value == cty.NilVal {
			rx.Error = "the step has no result to check"
		} else if missing := r.unmetRefs(x.Condition); missing != "" {
			rx.Error = missing
		} else {
			ectx := stepCtx()
			v, diags := x.Condition.Eval(ectx)
			switch {
			case diags.HasErrors():
				rx.Error = diagText(diags)
			case v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool:
				rx.Error = "the condition is not true or false"
			default:
				rx.Held = v.True()
			}
			rx.Parts = conditionParts(x.Condition, ectx)
		}
		rs.Expectations = append(rs.Expectations, rx)
	}
	rs.Error = r.masker.MaskString(rs.Error)
	return rs
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// unmetRefs is unmet for one expression.
func (r *Runner) unmetRefs(x schemas.Expr) string {
	var whys []string
	for _, ref := range x.Refs {
		if _, ok := r.caps[ref.Experiment][ref.Step][ref.Name]; !ok {
			whys = append(whys, ref.Text+" was not captured")
		}
	}
	return strings.Join(whys, "; ")
}

func (r *Runner) stepTimeout(s *schemas.Step, def time.Duration) time.Duration {
	if d := schemas.ParseDuration(s.Timeout); d > 0 {
		return r.capped(d)
	}
	return r.capped(def)
}

// capped bounds a time limit while a control is on: the experiment is
// expected to fail there, and a wait need not run to its healthy timeout
// to show it.
func (r *Runner) capped(d time.Duration) time.Duration {
	if r.cap > 0 && d > r.cap {
		return r.cap
	}
	return d
}

// execute runs a step's action without captures and expectations (wait
// re-runs use it too).
func (r *Runner) execute(ctx context.Context, e *schemas.Experiment, s *schemas.Step) (out outcome) {
	defer func() {
		// A bug in one step must not lose the record of the others.
		if p := recover(); p != nil {
			out = outcome{err: fmt.Errorf("internal error in labgen while running this step: %v (please report it)", p)}
		}
	}()
	if k, ok := kindRuns[s.Kind]; ok {
		return k.run(r, ctx, e, s)
	}
	return outcome{err: fmt.Errorf("step kind %q is not known to this labgen", s.Kind)}
}

func (r *Runner) engine(name string) (query.Engine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.engines[name]; ok {
		return e, nil
	}
	ep, ok := r.opt.Endpoints.DB[name]
	if !ok {
		return nil, r.opt.Endpoints.Unavailable(name)
	}
	e, err := query.Open(ep)
	if err != nil {
		return nil, err
	}
	r.engines[name] = e
	return e, nil
}

func (r *Runner) endpointOf(engine string) string {
	return r.opt.Endpoints.DB[engine].String()
}

// evalString evaluates a run-time string (SQL, a Kafka key).
func (r *Runner) evalString(e *schemas.Experiment, x schemas.Expr, what string) (string, error) {
	v, diags := x.Eval(r.evalCtx(e.Name, cty.NilVal))
	if diags.HasErrors() {
		return "", fmt.Errorf("the %s could not be filled in: %s", what, diagText(diags))
	}
	if v.IsNull() || !v.IsKnown() {
		return "", fmt.Errorf("the %s is null", what)
	}
	if v.Type() != cty.String {
		return Display(v), nil
	}
	return v.AsString(), nil
}

func (r *Runner) runQuery(ctx context.Context, e *schemas.Experiment, s *schemas.Step) outcome {
	q := s.Query
	ran := &record.Ran{What: q.Engine, Endpoint: r.endpointOf(q.Engine)}
	if q.Preset != "" {
		ran.Detail = fmt.Sprintf("Preset `%s`.", q.Preset)
	}
	sql, err := r.evalString(e, q.SQL, "SQL")
	if err != nil {
		return outcome{ran: ran, err: fixed(err, "the SQL cannot be filled in")}
	}
	ran.SQL = sql
	if err := sqlread.Check(q.Engine, sql); err != nil {
		return outcome{ran: ran, err: fixed(fmt.Errorf("not run: steps may only read, and %v", err), "the SQL does not only read")}
	}
	eng, err := r.engine(q.Engine)
	if err != nil {
		// The run's endpoints do not change while it runs.
		return outcome{ran: ran, err: fixed(err, "no endpoint to query")}
	}
	maxRows := q.MaxRows
	if maxRows <= 0 {
		maxRows = r.rec.Limits.MaxRows
	}
	res, err := eng.Query(ctx, sql, query.Limits{MaxRows: maxRows, MaxBytes: r.rec.Limits.MaxBytes, Timeout: r.stepTimeout(s, defaultStepTimeout)})
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	t := record.Table{Columns: uniqueNames(res.Columns)}
	for ri, row := range res.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = cellText(v)
			if v == nil {
				t.Nulls = append(t.Nulls, [2]int{ri, i})
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	o := &record.Output{Tables: []record.Table{t}, Truncated: res.Truncated}
	if res.Truncated {
		o.Notes = append(o.Notes, fmt.Sprintf("Only the first %d rows are kept (at most %d rows and %d bytes of row data per query); the query returned more.",
			len(res.Rows), maxRows, r.rec.Limits.MaxBytes))
	}
	out := outcome{ran: ran, value: queryValue(res), output: o, counts: map[string]int64{"rows": int64(len(res.Rows))}}
	if s.Compare != nil {
		rc, bins, err := compare(s.Compare, res)
		if err != nil {
			out.err = err
			return out
		}
		out.compare = rc
		// The values are in record.json; the table shows them binned.
		o.Tables = []record.Table{bins}
		o.Notes = append(o.Notes, fmt.Sprintf("%d values of %s beside %s = %s, binned.", len(rc.Values), rc.Column, rc.Of, rc.Declared))
		if rc.Skipped > 0 {
			o.Notes = append(o.Notes, fmt.Sprintf("%d rows had no number in %s and are left out.", rc.Skipped, rc.Column))
		}
	}
	return out
}

func (r *Runner) runKafka(ctx context.Context, e *schemas.Experiment, s *schemas.Step) outcome {
	k := s.Kafka
	ran := &record.Ran{What: "kafka", Endpoint: strings.Join(r.opt.Endpoints.Kafka, ",")}
	if len(r.opt.Endpoints.Kafka) == 0 {
		return outcome{ran: ran, err: fixed(errors.New("no Kafka to read: the lab's stack has no kafka and --kafka was not given"), "no Kafka to read")}
	}
	if k.Offsets {
		return r.runKafkaOffsets(ctx, k, ran)
	}
	timeout := r.capped(schemas.ParseDuration(k.Timeout))
	opt := kafkaread.Options{Max: k.Max, Timeout: timeout}
	var res *kafkaread.Result
	var err error
	if k.Key != nil {
		keyText, kerr := r.evalString(e, *k.Key, "Kafka key")
		if kerr != nil {
			return outcome{ran: ran, err: fixed(kerr, "the Kafka key cannot be filled in")}
		}
		ran.Detail = fmt.Sprintf("Every message of key `%s` in topic `%s`, all partitions.", keyText, k.Topic)
		res, err = kafkaread.ByKey(ctx, r.opt.Endpoints.Kafka, k.Topic, []byte(keyText), opt)
	} else {
		ran.Detail = fmt.Sprintf("The last %d messages of topic `%s`.", k.Tail, k.Topic)
		res, err = kafkaread.Tail(ctx, r.opt.Endpoints.Kafka, k.Topic, k.Tail, opt)
	}
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	t := record.Table{Columns: []string{"partition", "offset", "timestamp", "key", "value"}}
	var tombs int64
	for _, m := range res.Messages {
		v := kafkaread.Text(m.Value)
		if m.Tombstone {
			v = "(tombstone)"
			tombs++
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(m.Partition), fmt.Sprint(m.Offset), kafkaTime(m.Timestamp), kafkaread.Text(m.Key), v})
	}
	o := &record.Output{Tables: []record.Table{t}, Truncated: res.Truncated}
	o.Notes = append(o.Notes, fmt.Sprintf("Read %d records of %d partitions (offsets as they were when the read started).", res.Scanned, res.Partitions))
	if res.Truncated {
		o.Notes = append(o.Notes, fmt.Sprintf("%d messages matched; only the %d most recent are kept (max = %d).", res.Matched, len(res.Messages), k.Max))
	}
	if res.TimedOut {
		o.Notes = append(o.Notes, fmt.Sprintf("The read stopped at its time limit of %s before reaching the end of every partition.", timeout))
	}
	return outcome{ran: ran, value: kafkaValue(res), output: o,
		counts: map[string]int64{"messages": int64(len(res.Messages)), "tombstones": tombs}}
}

var allShows = []string{flinkapi.ShowState, flinkapi.ShowVertices, flinkapi.ShowCheckpoints, flinkapi.ShowRestarts, flinkapi.ShowExceptions}

const maxExceptions = flinkapi.DefaultMaxExceptions

func (r *Runner) runFlink(ctx context.Context, s *schemas.Step) outcome {
	f := s.Flink
	ran := &record.Ran{What: "flink", Endpoint: record.URL(r.opt.Endpoints.Flink)}
	if r.flink == nil || r.opt.Endpoints.Flink == "" {
		return outcome{ran: ran, err: fixed(errors.New("no Flink to ask: the lab's stack has no flink and --flink was not given"), "no Flink to ask")}
	}
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, defaultStepTimeout))
	defer cancel()
	show := map[string]bool{}
	for _, x := range f.Show {
		show[x] = true
	}
	if f.Job == "" {
		ran.Command = "GET /jobs/overview, then each job's /jobs/{id}, /checkpoints, /metrics, /exceptions"
		jobs, err := r.flink.Jobs(ctx)
		if err != nil {
			return outcome{ran: ran, err: err}
		}
		jobs, left := jobsShown(jobs, maxJobsShown)
		cols := []string{"job", "job id", "state"}
		if show[flinkapi.ShowCheckpoints] {
			cols = append(cols, "checkpoints")
		}
		if show[flinkapi.ShowRestarts] {
			cols = append(cols, "restarts")
		}
		t := record.Table{Columns: cols}
		var vals []cty.Value
		for _, j := range jobs {
			st, err := r.flink.JobStatus(ctx, j.ID, allShows, maxExceptions)
			if err != nil {
				return outcome{ran: ran, err: err}
			}
			vals = append(vals, flinkValue(st, r.restartBase))
			row := []string{st.Name, st.JobID, st.State}
			if show[flinkapi.ShowCheckpoints] {
				row = append(row, checkpointText(st.Checkpoints))
			}
			if show[flinkapi.ShowRestarts] {
				row = append(row, fmt.Sprint(st.Restarts))
			}
			t.Rows = append(t.Rows, row)
		}
		v := cty.ObjectVal(map[string]cty.Value{"jobs": cty.TupleVal(vals), "count": cty.NumberIntVal(int64(len(vals)))})
		out := &record.Output{Tables: []record.Table{t}}
		if left > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d older jobs that ended are left out (at most %d jobs are shown; every one that has not ended is).", left, maxJobsShown))
		}
		return outcome{ran: ran, value: v, output: out, counts: map[string]int64{"jobs": int64(len(vals))}}
	}
	id, err := r.jobID(ctx, f.Job)
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	ran.Command = fmt.Sprintf("GET /jobs/%s, /jobs/%s/checkpoints, /jobs/%s/metrics?get=numRestarts, /jobs/%s/exceptions", id, id, id, id)
	fetch := allShows
	if show[flinkapi.ShowBackpressure] {
		fetch = append(append([]string(nil), allShows...), flinkapi.ShowBackpressure)
		ran.Command += fmt.Sprintf(", each vertex's /jobs/%s/vertices/{vertex}/backpressure", id)
	}
	ran.Detail = fmt.Sprintf("Flink job `%s`.", f.Job)
	st, err := r.flink.JobStatus(ctx, id, fetch, maxExceptions)
	if err != nil {
		return outcome{ran: ran, err: err}
	}
	return outcome{ran: ran, value: flinkValue(st, r.restartBase), output: flinkOutput(st, show), counts: map[string]int64{}}
}

// maxJobsShown bounds a flink step without a job: a run with controls
// leaves a cancelled job behind for every mutant.
const maxJobsShown = 20

// jobsShown keeps every job that has not ended and then the newest ended
// ones, up to max in all, in the order given (newest first), and says how
// many it left out. Cutting the newest-first list instead dropped the
// lab's own long-running jobs once twenty mutants had come and gone, and
// an expectation counting running jobs failed for it.
func jobsShown(jobs []flinkapi.JobSummary, max int) (shown []flinkapi.JobSummary, left int) {
	room := max
	for _, j := range jobs {
		if flinkapi.Active(j.State) {
			room--
		}
	}
	for _, j := range jobs {
		switch {
		case flinkapi.Active(j.State):
			shown = append(shown, j)
		case room > 0:
			shown = append(shown, j)
			room--
		default:
			left++
		}
	}
	return shown, left
}

// percent writes a ratio of time (0 to 1) as Flink's UI does.
func percent(r float64) string { return fmt.Sprintf("%.0f%%", 100*r) }

func checkpointText(c flinkapi.CheckpointStatus) string {
	s := fmt.Sprintf("%d completed, %d failed, %d in progress", c.Completed, c.Failed, c.InProgress)
	if c.LatestID > 0 {
		s += fmt.Sprintf("; latest #%d at %s, state %.1f MiB", c.LatestID, c.LatestTime.UTC().Format("15:04:05Z"), float64(c.LatestStateSize)/(1<<20))
	}
	if c.RestoredID > 0 {
		s += fmt.Sprintf("; restored from #%d", c.RestoredID)
	}
	return s
}

func flinkOutput(st *flinkapi.Status, show map[string]bool) *record.Output {
	o := &record.Output{}
	kv := record.Table{Columns: []string{"job", st.Name + " (" + st.JobID + ")"}}
	if show[flinkapi.ShowState] {
		kv.Rows = append(kv.Rows, []string{"state", st.State})
	}
	if show[flinkapi.ShowRestarts] {
		kv.Rows = append(kv.Rows, []string{"restarts", fmt.Sprint(st.Restarts)})
	}
	if show[flinkapi.ShowCheckpoints] {
		kv.Rows = append(kv.Rows, []string{"checkpoints", checkpointText(st.Checkpoints)})
	}
	if len(kv.Rows) > 0 {
		o.Tables = append(o.Tables, kv)
	}
	if show[flinkapi.ShowVertices] || show[flinkapi.ShowBackpressure] {
		t := record.Table{Title: "Vertices", Columns: []string{"vertex", "status", "records in", "records out"}}
		if show[flinkapi.ShowBackpressure] {
			t.Columns = append(t.Columns, "backpressured", "busy", "level")
		}
		for _, v := range st.Vertices {
			row := []string{v.Name, v.Status, fmt.Sprint(v.RecordsIn), fmt.Sprint(v.RecordsOut)}
			if show[flinkapi.ShowBackpressure] {
				if b := v.Backpressure; b != nil {
					row = append(row, percent(b.Ratio), percent(b.Busy), b.Level)
				} else {
					row = append(row, "not measured yet", "", "")
				}
			}
			t.Rows = append(t.Rows, row)
		}
		o.Tables = append(o.Tables, t)
	}
	if show[flinkapi.ShowExceptions] {
		t := record.Table{Title: fmt.Sprintf("Exceptions (newest first, at most %d)", maxExceptions), Columns: []string{"time", "task", "exception"}}
		for _, e := range st.Exceptions {
			t.Rows = append(t.Rows, []string{e.Time.UTC().Format("2006-01-02 15:04:05Z"), e.Task, e.Message})
		}
		o.Tables = append(o.Tables, t)
	}
	return o
}

func (r *Runner) runCompose(ctx context.Context, s *schemas.Step) outcome {
	c := s.Compose
	// The command is the face's own (docker compose, the native
	// supervisor, kubectl): a record says what really acted on the service.
	ran := &record.Ran{What: "compose", Action: c.Action, Service: c.Service, Endpoint: r.opt.Lab.Dir}
	if r.opt.Compose != nil {
		ran.Command = r.opt.Compose.Command(c.Action, c.Service)
	}
	if r.opt.Compose == nil {
		err := r.opt.ComposeErr
		if err == nil {
			err = errors.New("compose steps need Docker, which this run does not use")
		}
		return outcome{ran: ran, err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, r.stepTimeout(s, 3*time.Minute))
	defer cancel()
	out, err := r.opt.Compose.Service(ctx, c.Action, c.Service)
	o := &record.Output{Text: strings.TrimSpace(out)}
	if o.Text == "" {
		o = nil
	}
	return outcome{ran: ran, output: o, err: err}
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (r *Runner) runWait(ctx context.Context, e *schemas.Experiment, s *schemas.Step) outcome {
	w := s.Wait
	if w.Rerun == "" {
		d := schemas.ParseDuration(w.Duration)
		r.opt.Progress.Waiting(r.now().Add(d), 0, "waiting "+d.String())
		r.sleep(ctx, d)
		return outcome{ran: &record.Ran{What: "wait", Detail: fmt.Sprintf("Waited %s.", d)}}
	}
	target := e.Step(w.Rerun)
	if target == nil || w.Until == nil && w.Duration == "" {
		return outcome{err: fmt.Errorf("wait re-runs step %q, which experiment %s does not have", w.Rerun, e.Name)}
	}
	interval := schemas.ParseDuration(w.Interval)
	if interval < 100*time.Millisecond {
		interval = 100 * time.Millisecond
	}
	start := r.now()
	sm := &sampler{start: start}
	// Sampling for a duration: every run until the time is up, no
	// condition; the step is ok when every run was.
	if w.Until == nil {
		d := schemas.ParseDuration(w.Duration)
		end := start.Add(d)
		detail := fmt.Sprintf("Re-ran step `%s` every %s for %s.", w.Rerun, interval, d)
		sampled := fmt.Sprintf("step `%s` every %s for %s: %s", w.Rerun, interval, d, sampleDetail(s))
		failed := 0
		for attempt := 1; ; attempt++ {
			out := r.execute(ctx, e, target)
			if ctx.Err() != nil {
				return outcome{}
			}
			r.take(sm, e, s, target.Kind, out)
			if out.err != nil {
				failed++
				if why, ok := permanent(out.err); ok {
					return stopWaiting(waitOutcome(out, detail, attempt, sm, sampled), attempt, out.err, why)
				}
			}
			if !r.now().Add(interval).Before(end) {
				res := waitOutcome(out, detail, attempt, sm, sampled)
				// The span measured, first run's start to last run's end:
				// the loop stops an interval before the asked duration.
				res.output.Notes = append(res.output.Notes, fmt.Sprintf("%d runs in %s (of the %s asked); the last run's output is shown.",
					attempt, record.Duration(r.now().Sub(start).Milliseconds()), d))
				if failed == attempt && out.err != nil {
					res.err = fmt.Errorf("every run failed; the last: %w", out.err)
				} else if failed > 0 {
					res.output.Notes = append(res.output.Notes, fmt.Sprintf("%d of the %d runs failed (kept as samples with their errors).", failed, attempt))
				}
				return res
			}
			r.opt.Progress.Waiting(r.now().Add(interval), attempt, fmt.Sprintf("sampling %s (run %d, until %s)", w.Rerun, attempt, end.Format("15:04:05")))
			r.sleep(ctx, interval)
			if ctx.Err() != nil {
				return outcome{}
			}
		}
	}
	timeout := schemas.ParseDuration(w.Timeout)
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	timeout = r.capped(timeout)
	deadline := start.Add(timeout)
	detail := fmt.Sprintf("Re-ran step `%s` every %s until `%s` held, for at most %s.", w.Rerun, interval, w.Until.Source, timeout)
	sampled := fmt.Sprintf("step `%s` every %s until the condition held: %s", w.Rerun, interval, sampleDetail(s))
	for attempt := 1; ; attempt++ {
		out := r.execute(ctx, e, target)
		if ctx.Err() != nil {
			return outcome{}
		}
		r.take(sm, e, s, target.Kind, out)
		res := waitOutcome(out, detail, attempt, sm, sampled)
		elapsed := r.now().Sub(start).Round(time.Second)
		if why, ok := permanent(out.err); ok {
			return stopWaiting(res, attempt, out.err, why)
		}
		if out.err == nil {
			c := r.evalCtx(e.Name, out.value)
			c.Variables["samples"] = sm.value()
			v, diags := w.Until.Eval(c)
			switch {
			case diags.HasErrors():
				res.err = fmt.Errorf("the condition `%s` could not be evaluated: %s", w.Until.Source, diagText(diags))
				return res
			case v.IsKnown() && !v.IsNull() && v.Type() == cty.Bool && v.True():
				res.output.Notes = append(res.output.Notes, fmt.Sprintf("The condition held on run %d, after %s.", attempt, elapsed))
				return res
			}
			// A job that has ended stays as it is: waiting out the
			// timeout would only repeat the last run. Nothing resubmits a
			// job while an experiment runs (controls apply before it and
			// undo after), so the job the step follows is this one.
			if state, ok := endedJob(target, out.value); ok {
				res.status = record.StatusTimedOut
				res.output.Notes = append(res.output.Notes, fmt.Sprintf("Stopped early, after run %d (%s): job %s is %s, a state Flink never leaves, so `%s` cannot hold; the last run's output is shown.", attempt, elapsed, target.Flink.Job, state, w.Until.Source))
				return res
			}
		}
		if !r.now().Add(interval).Before(deadline) {
			res.status = record.StatusTimedOut
			res.output.Notes = append(res.output.Notes, fmt.Sprintf("The condition `%s` did not hold within %s (%d runs); the last run's output is shown.", w.Until.Source, timeout, attempt))
			if out.err != nil {
				res.err = fmt.Errorf("every run until the timeout failed; the last: %w", out.err)
			}
			return res
		}
		r.opt.Progress.Waiting(r.now().Add(interval), attempt, fmt.Sprintf("waiting for %s (run %d, gives up at %s)", w.Until.Source, attempt, deadline.Format("15:04:05")))
		r.sleep(ctx, interval)
		if ctx.Err() != nil {
			return outcome{}
		}
	}
}

// endedJob tells whether a flink step's run found its job in a state it
// never leaves, and which.
func endedJob(target *schemas.Step, v cty.Value) (string, bool) {
	if target.Kind != schemas.StepFlink || target.Flink == nil || target.Flink.Job == "" || v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("state") {
		return "", false
	}
	st := v.GetAttr("state")
	if st.IsNull() || !st.IsKnown() || st.Type() != cty.String {
		return "", false
	}
	return st.AsString(), flinkapi.Ended(st.AsString())
}

// waitOutcome is a re-running wait's outcome after a run: the run's
// result and output, the samples so far.
func waitOutcome(out outcome, detail string, attempt int, sm *sampler, sampled string) outcome {
	ran := &record.Ran{What: "wait", Detail: detail}
	if out.ran != nil {
		ran.Endpoint, ran.SQL, ran.Command = out.ran.Endpoint, out.ran.SQL, out.ran.Command
	}
	res := outcome{ran: ran, value: out.value, output: out.output, counts: out.counts, attempts: attempt, samples: sm, sampled: sampled}
	if res.output == nil {
		res.output = &record.Output{}
	} else {
		// The notes of earlier runs must not pile up on the shown output.
		o := *res.output
		o.Notes = append([]string(nil), o.Notes...)
		res.output = &o
	}
	return res
}
