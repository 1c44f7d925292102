package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// Services is what compose steps need of the stack (package compose
// implements it).
type Services interface {
	Service(ctx context.Context, action, service string) (string, error)
	Command(args ...string) string
}

// Links is what a latency control needs of the stack: one link slowed
// and restored (the native stack's link proxy; compose and Kubernetes
// route no link through a proxy).
type Links interface {
	SlowLink(ctx context.Context, link string, add time.Duration) (string, error)
	RestoreLink(ctx context.Context, link string) (string, error)
}

// Options configure a run.
type Options struct {
	Lab       *labdir.Lab
	Endpoints labdir.Endpoints
	// Experiments select experiments by number or name; none means all.
	Experiments []string
	// Resume is the path of a record (its directory or record.json) to
	// continue after its last finished step.
	Resume string
	// RecordsDir holds the records (default: the lab's records/).
	RecordsDir string
	// Compose runs compose steps; when nil, ComposeErr says why they
	// cannot run.
	Compose    Services
	ComposeErr error
	// Stack is what the record says of the stack the run uses.
	Stack *record.Stack
	// StackExits, when set, says which services exited on their own
	// since a time (record.Stack.Exits); it is asked whenever the record
	// is written.
	StackExits func(since time.Time) []string
	// Versions are what the face knows ran (jars on class paths,
	// labgen.lock); with Provenance the run adds what it asks the
	// engines (their versions, Flink's settings) before the experiments.
	Versions []record.Version
	// JVMs are the stack's Java processes as the face saw them (the
	// native face reads /proc); without them the run asks Flink.
	JVMs       []record.JVM
	Provenance bool
	// Controls runs each experiment again under every negative control
	// its expectations name, and records their verdicts; ControlCap
	// bounds waits and step timeouts meanwhile (DefaultControlCap).
	Controls   bool
	ControlCap time.Duration
	// SubmitJobs submits the lab's streaming jobs that are not running.
	SubmitJobs bool
	Progress   Progress
	Version    string
	// Command is the command line as typed; Where and Host say where it
	// ran (each session of a record keeps its own).
	Command string
	Where   string
	Host    *record.Host
	Limits  record.Limits
	// Now is the clock (tests).
	Now func() time.Time
	// ID names a new record (default: time and random suffix).
	ID string
}

// DefaultLimits are the limits of a record unless Options say otherwise.
var DefaultLimits = record.Limits{MaxRows: 20, MaxBytes: record.DefaultMaxBytes, MaxCell: record.DefaultMaxCell, StepTimeout: "1m0s"}

// Default time bounds of step kinds without a timeout of their own.
var (
	defaultStepTimeout  = time.Minute
	defaultBatchTimeout = 15 * time.Minute
	// resultWait bounds how long a smoke check that fails is tried again,
	// and how long a batch step waits for a bounded job's result to reach
	// ClickHouse (./stream-lab's SMOKE_WAIT); resultInterval is the pause
	// between tries.
	resultWait     = 2 * time.Minute
	resultInterval = 5 * time.Second
)

// Runner runs experiments into a record.
type Runner struct {
	opt     Options
	lab     *schemas.Lab
	vars    map[string]cty.Value
	rec     *record.Record
	dir     string
	masker  *record.Masker
	caps    schemas.Captures
	missing map[string]string // "exp.step.name" → why it was not captured
	now     func() time.Time

	mu      sync.Mutex
	engines map[string]query.Engine
	flink   *flinkapi.Client
	jobIDs  map[string]string // job name → ID (found or submitted)
	// cap bounds waits and step timeouts while a control is on (0: off).
	cap time.Duration
	// batchMutant is the control whose mutant a bounded job runs as
	// while that control is on (job name → control).
	batchMutant map[string]*schemas.Control
	// restartBase is each running job's restarts (by job ID) when the
	// current experiment began, before any control was applied to it.
	restartBase map[string]int64
}

// ErrUsage marks mistakes in what was asked (unknown experiment, a record
// of another lab).
var ErrUsage = errors.New("usage")

type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }
func (e *usageErr) Unwrap() error { return ErrUsage }

func usagef(format string, a ...any) error { return &usageErr{fmt.Sprintf(format, a...)} }

// New prepares a run: a new record, or the record to resume.
func New(opt Options) (*Runner, error) {
	if opt.Lab == nil {
		return nil, errors.New("runner: no lab")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Progress == nil {
		opt.Progress = nopProgress{}
	}
	if opt.Limits == (record.Limits{}) {
		opt.Limits = DefaultLimits
	}
	if opt.RecordsDir == "" {
		opt.RecordsDir = filepath.Join(opt.Lab.Dir, "records")
	}
	vars, err := opt.Lab.Lab.VarValues()
	if err != nil {
		return nil, err
	}
	r := &Runner{opt: opt, lab: opt.Lab.Lab, vars: vars, caps: schemas.Captures{}, missing: map[string]string{},
		now: opt.Now, engines: map[string]query.Engine{}, jobIDs: map[string]string{}}
	r.masker = MaskerFor(opt)
	if opt.Endpoints.Flink != "" || opt.Endpoints.Gateway != "" {
		r.flink = flinkapi.New(opt.Endpoints.Flink, opt.Endpoints.Gateway)
	}
	if opt.Resume != "" {
		if len(opt.Experiments) > 0 {
			return nil, usagef("--resume continues the experiments its record chose; leave out --experiment")
		}
		if err := r.resume(opt.Resume); err != nil {
			return nil, err
		}
		return r, nil
	}
	sel, err := r.selectExperiments(opt.Experiments)
	if err != nil {
		return nil, err
	}
	r.rec = r.newRecord(sel)
	r.dir = filepath.Join(opt.RecordsDir, r.rec.ID)
	return r, nil
}

// Record is the record being written.
func (r *Runner) Record() *record.Record { return r.rec }

// Dir is the record's directory.
func (r *Runner) Dir() string { return r.dir }

// Selects tells whether --experiment N|NAME names experiment e: its
// name, or its number with or without leading zeros.
func Selects(sel string, e *schemas.Experiment) bool {
	return e.Name == sel || strconv.Itoa(e.Number) == strings.TrimLeft(sel, "0") || fmt.Sprintf("%02d", e.Number) == sel
}

func (r *Runner) selectExperiments(sel []string) ([]string, error) {
	if len(sel) == 0 {
		var all []string
		for _, e := range r.lab.Experiments {
			all = append(all, e.Name)
		}
		return all, nil
	}
	want := map[string]bool{}
	for _, s := range sel {
		var found *schemas.Experiment
		for _, e := range r.lab.Experiments {
			if Selects(s, e) {
				found = e
			}
		}
		if found == nil {
			var names []string
			for _, e := range r.lab.Experiments {
				names = append(names, fmt.Sprintf("%d %s", e.Number, e.Name))
			}
			return nil, usagef("no experiment %q in lab %s; it has: %s", s, r.lab.Name, strings.Join(names, ", "))
		}
		want[found.Name] = true
	}
	var out []string
	for _, e := range r.lab.Experiments {
		if want[e.Name] {
			out = append(out, e.Name)
		}
	}
	return out, nil
}

// NewID names a record (or a set of them) begun at t: its time, UTC, and
// a random suffix.
func NewID(t time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

func (r *Runner) newRecord(selected []string) *record.Record {
	now := r.now().UTC()
	id := r.opt.ID
	if id == "" {
		id = NewID(now)
	}
	rec := &record.Record{
		Format: record.Format, ID: id, Status: record.RunRunning,
		Lab:  record.Lab{Name: r.lab.Name, Title: r.lab.Title, Hash: r.opt.Lab.Hash()},
		Seed: r.lab.Seed, Labgen: r.opt.Version, Limits: r.opt.Limits,
		Selected: selected, Started: now,
		Sessions: []record.Session{r.session(now)},
	}
	for _, v := range r.lab.Variables {
		rec.Variables = append(rec.Variables, record.Variable{Name: v.Name, Value: v.Value, Source: v.Source})
	}
	// The images render resolved (lab.json's stack.images), not derived
	// again: the record names what the lock names.
	for _, im := range r.lab.Stack.Images {
		rec.Images = append(rec.Images, record.Image{Component: im.Role, Image: im.Ref})
	}
	rec.Endpoints = r.endpoints()
	rec.Stack = r.opt.Stack
	return rec
}

func (r *Runner) endpoints() []record.Endpoint {
	e := r.opt.Endpoints
	var out []record.Endpoint
	for _, engine := range labdir.Engines {
		if ep, ok := e.DB[engine]; ok {
			out = append(out, record.Endpoint{Name: labdir.Title(engine), Address: ep.String()})
		}
	}
	if len(e.Kafka) > 0 {
		out = append(out, record.Endpoint{Name: "Kafka", Address: strings.Join(e.Kafka, ",")})
	}
	if e.Flink != "" {
		out = append(out, record.Endpoint{Name: "Flink REST", Address: record.URL(e.Flink)})
	}
	if e.Gateway != "" {
		out = append(out, record.Endpoint{Name: "Flink SQL gateway", Address: record.URL(e.Gateway)})
	}
	return out
}

// resume loads a record and restores what its finished steps captured.
func (r *Runner) resume(path string) error {
	rec, err := record.Read(path)
	if err != nil {
		return err
	}
	if rec.Lab.Name != r.lab.Name {
		return usagef("record %s is of lab %s, not %s", path, rec.Lab.Name, r.lab.Name)
	}
	if h := r.opt.Lab.Hash(); rec.Lab.Hash != h {
		return usagef("the lab changed since record %s was started (lab.json was %s, is %s); start a new record instead", path, short(rec.Lab.Hash), short(h))
	}
	r.rec = rec
	r.dir = record.Dir(path)
	for _, e := range rec.Experiments {
		for _, s := range e.Steps {
			for _, c := range s.Captures {
				if c.Error != "" || len(c.Value) == 0 {
					r.missing[key(e.Name, s.Name, c.Name)] = c.Error
					continue
				}
				var v ctyjson.SimpleJSONValue
				if err := json.Unmarshal(c.Value, &v); err != nil {
					return fmt.Errorf("record %s: capture %s of step %s: %w", path, c.Name, s.Name, err)
				}
				r.caps.Set(e.Name, s.Name, c.Name, v.Value)
			}
			if s.Status != record.StatusOK {
				r.markMissing(e.Name, s, stepWhy(s))
			}
		}
	}
	now := r.now().UTC()
	for i := range rec.Sessions {
		if rec.Sessions[i].Status == record.RunRunning {
			rec.Sessions[i].Status = record.RunStopped
		}
	}
	rec.Status = record.RunRunning
	rec.Ended = nil
	rec.Sessions = append(rec.Sessions, r.session(now))
	return nil
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19] + "…"
	}
	return h
}

func key(exp, step, name string) string { return exp + "." + step + "." + name }

func stepWhy(s *record.Step) string {
	switch s.Status {
	case record.StatusSkipped:
		return fmt.Sprintf("step %s was skipped (%s)", s.Name, s.Skipped)
	case record.StatusTimedOut:
		return fmt.Sprintf("step %s timed out", s.Name)
	}
	return fmt.Sprintf("step %s failed", s.Name)
}

// markMissing notes, for each capture a step declares but did not get,
// why.
func (r *Runner) markMissing(exp string, s *record.Step, why string) {
	e := r.lab.Experiment(exp)
	if e == nil {
		return
	}
	if d := e.Step(s.Name); d != nil {
		for _, c := range d.Captures {
			k := key(exp, s.Name, c.Name)
			if _, ok := r.missing[k]; !ok {
				r.missing[k] = why
			}
		}
	}
}

// write puts the record on disk.
func (r *Runner) write() error {
	if r.opt.StackExits != nil && r.rec.Stack != nil {
		st := *r.rec.Stack
		st.Exits = r.opt.StackExits(r.rec.Started)
		r.rec.Stack = &st
	}
	if err := record.Write(r.dir, r.rec, r.masker); err != nil {
		return fmt.Errorf("writing the record: %w", err)
	}
	return nil
}

// Run runs the selected experiments (or what is left of them) and returns
// the record. The record is on disk after every step. When ctx ends, the
// step in flight is not recorded, the record is marked interrupted, and
// ctx's error is returned; --resume continues from there.
func (r *Runner) Run(ctx context.Context) (rec *record.Record, err error) {
	defer r.closeEngines()
	if err := r.write(); err != nil {
		return r.rec, err
	}
	defer func() {
		now := r.now().UTC()
		status := record.RunFinished
		if ctx.Err() != nil {
			status = record.RunInterrupted
			if err == nil {
				err = ctx.Err()
			}
		}
		r.rec.Status = status
		r.rec.Ended = &now
		if n := len(r.rec.Sessions); n > 0 {
			r.rec.Sessions[n-1].Ended = &now
			r.rec.Sessions[n-1].Status = status
		}
		if werr := r.write(); werr != nil && err == nil {
			err = werr
		}
	}()
	if r.opt.SubmitJobs {
		r.submitJobs(ctx)
		if err := r.write(); err != nil {
			return r.rec, err
		}
	}
	// Once per record: a resumed run keeps what its first session found.
	if r.opt.Provenance && len(r.rec.Versions) == 0 {
		r.provenance(ctx)
		if err := r.write(); err != nil {
			return r.rec, err
		}
	}
	for _, name := range r.rec.Selected {
		if ctx.Err() != nil {
			return r.rec, ctx.Err()
		}
		e := r.lab.Experiment(name)
		if e == nil {
			continue
		}
		if err := r.runExperiment(ctx, e); err != nil {
			return r.rec, err
		}

	}
	if r.opt.Controls {
		if err := r.runControls(ctx); err != nil {
			return r.rec, err
		}
	}
	return r.rec, nil
}

func (r *Runner) runExperiment(ctx context.Context, e *schemas.Experiment) error {
	re := r.rec.Experiment(e.Name)
	if re != nil && re.Status != record.ExpRunning {
		return nil // finished in an earlier session
	}
	if re == nil {
		re = &record.Experiment{Name: e.Name, Number: e.Number, Title: e.Title, Question: e.Question, Intro: e.Intro,
			Record: e.Record, Expected: e.Expected, Interpretation: e.Interpretation, Status: record.ExpRunning, Total: len(e.Steps)}
		r.rec.Experiments = append(r.rec.Experiments, re)
	}
	r.opt.Progress.Experiment(e)
	if e.Unavailable != "" {
		re.Status, re.Skipped = record.ExpSkipped, "unavailable in this stack: it "+e.Unavailable
		for _, s := range e.Steps {
			r.missingAll(e.Name, s, "experiment "+e.Name+" is unavailable in this stack")
		}
		r.opt.Progress.Skipped(e, re.Skipped)
		return r.write()
	}
	r.noteRestarts(ctx, e)
	stopped := ""
	for _, rs := range re.Steps {
		if rs.Status == record.StatusError {
			if d := e.Step(rs.Name); d != nil && d.OnFailure == "stop" {
				stopped = fmt.Sprintf("step %s failed and says on_failure = \"stop\"", rs.Name)
			}
		}
	}
	for i := len(re.Steps); i < len(e.Steps); i++ {
		s := e.Steps[i]
		rs := r.stepOrSkip(ctx, e, s, stopped)
		if rs == nil {
			return ctx.Err() // the interrupted step is not recorded
		}
		if rs.Status == record.StatusError && s.OnFailure == "stop" && stopped == "" {
			stopped = fmt.Sprintf("step %s failed and says on_failure = \"stop\"", s.Name)
		}
		re.Steps = append(re.Steps, rs)
		r.opt.Progress.StepDone(e, s, rs)
		if err := r.write(); err != nil {
			return err
		}
	}
	re.Measures = r.measure(e)
	re.Status = record.ExpDone
	return r.write()
}

// measure computes an experiment's measures from the captures its steps
// (and earlier experiments') left.
func (r *Runner) measure(e *schemas.Experiment) []record.Measure {
	var out []record.Measure
	for _, m := range e.Measures {
		rm := record.Measure{Name: m.Name, Title: m.Title, Unit: m.Unit, Definition: m.Definition, Expr: m.Value.Source}
		if why := r.unmetRefs(m.Value); why != "" {
			rm.Error = why
			out = append(out, rm)
			continue
		}
		v, diags := m.Value.Eval(r.evalCtx(e.Name, cty.NilVal))
		switch {
		case diags.HasErrors():
			rm.Error = diagText(diags)
		case v.IsNull() || !v.IsKnown():
			rm.Error = "the value is null"
		default:
			if n, err := convert.Convert(v, cty.Number); err != nil {
				rm.Error = "not a number: " + err.Error()
			} else if f, _ := n.AsBigFloat().Float64(); math.IsInf(f, 0) || math.IsNaN(f) {
				rm.Error = "not a finite number"
			} else {
				rm.Value = &f
			}
		}
		if rm.Value != nil {
			r.measureDetails(e, m, &rm)
		}
		out = append(out, rm)
	}
	return out
}

// measureDetails evaluates what a measured value summarises, as far as
// the lab declares it: its samples, window and resolution. One that
// cannot be evaluated leaves the value as it is and says why in Missing.
func (r *Runner) measureDetails(e *schemas.Experiment, m *schemas.Measure, rm *record.Measure) {
	eval := func(what string, x *schemas.Expr, set func(cty.Value) error) {
		if x == nil {
			return
		}
		why := r.unmetRefs(*x)
		if why == "" {
			v, diags := x.Eval(r.evalCtx(e.Name, cty.NilVal))
			if diags.HasErrors() {
				why = diagText(diags)
			} else if err := set(v); err != nil {
				why = what + " " + err.Error()
			}
		}
		if why != "" {
			if rm.Missing == nil {
				rm.Missing = map[string]string{}
			}
			rm.Missing[what] = why
		}
	}
	eval("samples", m.Samples, func(v cty.Value) error {
		n, err := schemas.MeasureCount(v)
		if err == nil {
			rm.Samples = &n
		}
		return err
	})
	eval("window", m.Window, func(v cty.Value) error {
		s, err := schemas.MeasureSpan(v, false)
		if err == nil {
			rm.WindowS = &s
		}
		return err
	})
	eval("resolution", m.Resolution, func(v cty.Value) error {
		s, err := schemas.MeasureSpan(v, true)
		if err == nil {
			rm.ResolutionS = &s
		}
		return err
	})
}

// stepOrSkip runs one step of e, or records it skipped: for skip when
// that is set, else for a captured value it needs that is missing. A
// step that did not end ok marks its captures missing. It returns nil
// when ctx ended during the step, which is then not recorded.
func (r *Runner) stepOrSkip(ctx context.Context, e *schemas.Experiment, s *schemas.Step, skip string) *record.Step {
	if skip == "" {
		skip = r.unmet(e, s)
	}
	if skip == "" && s.Kind == schemas.StepUsage {
		// Not an error of the lab or the pipeline: the face cannot answer.
		if _, ok := r.usageReader(); !ok {
			skip = errNoUsage.Error()
		}
	}
	var rs *record.Step
	if skip != "" {
		rs = r.skipped(s, skip)
	} else {
		r.opt.Progress.Step(e, s)
		rs = r.runStep(ctx, e, s)
		if ctx.Err() != nil {
			return nil
		}
	}
	if rs.Status != record.StatusOK {
		r.markMissing(e.Name, rs, stepWhy(rs))
	}
	return rs
}

func (r *Runner) missingAll(exp string, s *schemas.Step, why string) {
	for _, c := range s.Captures {
		r.missing[key(exp, s.Name, c.Name)] = why
	}
}

func (r *Runner) skipped(s *schemas.Step, why string) *record.Step {
	return &record.Step{Name: s.Name, Kind: s.Kind, Title: s.Title, Text: s.Text, Note: s.Note,
		Started: r.now().UTC(), Status: record.StatusSkipped, Skipped: why}
}

// unmet says why a step cannot run for lack of a captured value, or "".
func (r *Runner) unmet(e *schemas.Experiment, s *schemas.Step) string {
	var whys []string
	seen := map[string]bool{}
	for _, ref := range e.Inputs(s) {
		if seen[ref.Text] {
			continue
		}
		seen[ref.Text] = true
		if _, ok := r.caps[ref.Experiment][ref.Step][ref.Name]; ok {
			continue
		}
		why, ok := r.missing[key(ref.Experiment, ref.Step, ref.Name)]
		switch {
		case ok && why != "":
		case ref.Experiment != e.Name && r.rec.Experiment(ref.Experiment) == nil:
			why = "experiment " + ref.Experiment + " has not run in this record"
		default:
			why = "nothing was captured"
		}
		whys = append(whys, fmt.Sprintf("it needs %s, which was not captured: %s", ref.Text, why))
	}
	return strings.Join(whys, "; ")
}

// evalCtx is the evaluation context of a step's expressions.
func (r *Runner) evalCtx(exp string, result cty.Value) *hcl.EvalContext {
	return schemas.RunContext(r.vars, exp, r.caps, result)
}

func diagText(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		s := d.Summary
		if d.Detail != "" {
			s += ": " + d.Detail
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func (r *Runner) closeEngines() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.engines {
		_ = e.Close()
	}
	r.engines = map[string]query.Engine{}
}

// session is the record's entry for this run: when, what was typed,
// where and on what machine.
func (r *Runner) session(now time.Time) record.Session {
	return record.Session{Started: now, Status: record.RunRunning, Command: r.opt.Command, Where: r.opt.Where, Host: r.opt.Host}
}

// MaskerFor is what a run's records mask: the lab's secrets, the
// endpoints' passwords, and the lab directory (the native stack's SQL
// names directories under it; a record names them relative to it).
func MaskerFor(opt Options) *record.Masker {
	m := record.NewMasker(opt.Lab.Secrets()...)
	if abs, err := filepath.Abs(opt.Lab.Dir); err == nil && abs != "/" {
		m.Replace(abs, "<lab>")
	}
	for _, ep := range opt.Endpoints.DB {
		m.Add(ep.Password)
	}
	return m
}
