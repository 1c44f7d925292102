package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// DefaultControlCap bounds waits and step timeouts while a control is
// on: above the lab's own bounds on what it measures (30 s lags), far
// below the healthy timeouts an experiment allows itself.
const DefaultControlCap = 35 * time.Second

// runControls runs, for each control of the lab, every selected
// experiment whose expectations name it again while the control is on:
// applied once, the experiments one after another, undone once (the
// stack healthy again: services started, jobs submitted again and
// running). Then every expectation of the healthy runs gets its verdicts.
func (r *Runner) runControls(ctx context.Context) error {
	for _, c := range r.lab.Controls {
		if c.Auto != nil && !slices.ContainsFunc(r.lab.Experiments, func(e *schemas.Experiment) bool { return namesControl(e, r.lab, c) }) &&
			!slices.ContainsFunc(r.rec.Unseen, func(u record.UnseenMutant) bool { return u.Control == c.Name }) {
			r.rec.Unseen = append(r.rec.Unseen, record.UnseenMutant{Control: c.Name, Title: c.Title, Diff: r.mutantDiff(c)})
		}
		var exps []*schemas.Experiment
		for _, name := range r.rec.Selected {
			e := r.lab.Experiment(name)
			if e == nil || !namesControl(e, r.lab, c) {
				continue
			}
			if he := r.rec.Experiment(name); he == nil || he.Status != record.ExpDone {
				continue
			}
			if run := r.controlRun(e.Name, c.Name); run != nil && run.Ended != nil {
				continue // done in an earlier session
			}
			exps = append(exps, e)
		}
		if len(exps) == 0 {
			continue
		}
		// A pause that thaws by itself is a fault in time: applied anew
		// for each experiment, or only the first would see it.
		batches := [][]*schemas.Experiment{exps}
		if c.PauseFor != "" {
			batches = nil
			for _, e := range exps {
				batches = append(batches, []*schemas.Experiment{e})
			}
		}
		for _, b := range batches {
			if err := r.underControl(ctx, c, b); err != nil {
				return err
			}
		}
	}
	for _, name := range r.rec.Selected {
		e := r.lab.Experiment(name)
		if he := r.rec.Experiment(name); e != nil && he != nil && he.Status == record.ExpDone {
			r.verdicts(e, he)
		}
	}
	return r.write()
}

func namesControl(e *schemas.Experiment, l *schemas.Lab, c *schemas.Control) bool {
	for _, x := range e.Controls(l) {
		if x == c {
			return true
		}
	}
	return false
}

func (r *Runner) capOrDefault() time.Duration {
	if r.opt.ControlCap > 0 {
		return r.opt.ControlCap
	}
	return DefaultControlCap
}

// mutantDiff is a mutant's query against its job's, as a unified diff
// without the SQL comments (the mutant's say why it is wrong; the diff
// shows where).
func (r *Runner) mutantDiff(c *schemas.Control) string {
	m := c.Mutant
	if m == nil {
		return ""
	}
	var a, b []string
	from, to := "jobs/"+m.Name, "control "+c.Name
	if au := c.Auto; au != nil {
		// Both queries as Flink's parser unparses them: the diff shows
		// the mutation, not the unparser's layout.
		a, b, to = difflib.SplitLines(au.Base+"\n"), difflib.SplitLines(au.Select+"\n"), "mutant "+c.Name
	} else {
		job := r.lab.Job(m.Name)
		if job == nil {
			return ""
		}
		code := func(j *schemas.Job) []string {
			var out []string
			// The job's own settings, as its script sets them: a mutant may
			// differ there alone (no restart strategy).
			for _, s := range j.Settings {
				out = append(out, fmt.Sprintf("SET '%s' = '%s';\n", s.Key, s.Value))
			}
			for _, l := range difflib.SplitLines(j.Query + "\n") {
				if !strings.HasPrefix(strings.TrimSpace(l), "--") {
					out = append(out, l)
				}
			}
			return out
		}
		a, b = code(job), code(m)
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: from, ToFile: to, Context: 1})
	if err != nil {
		return ""
	}
	return d
}

// controlCap bounds waits under c. A pause that thaws by itself, or a
// slowed link, lets the rows arrive late: the waits must outlast the
// delay, or a bound on lag would be seen only as an empty result, which
// shows nothing.
func (r *Runner) controlCap(c *schemas.Control) time.Duration {
	cp := r.capOrDefault() + schemas.ParseDuration(c.PauseFor)
	if c.Latency != nil {
		cp += schemas.ParseDuration(c.Latency.Add)
	}
	return cp
}

func (r *Runner) controlRun(exp, control string) *record.ControlRun {
	for _, c := range r.rec.Controls {
		if c.Experiment == exp && c.Control == control {
			return c
		}
	}
	return nil
}

// underControl applies c, runs each experiment's steps into a control
// run of its own, and undoes c. The experiments' captures are their
// healthy runs' again afterwards: later experiments and the verdicts
// read those.
func (r *Runner) underControl(ctx context.Context, c *schemas.Control, exps []*schemas.Experiment) error {
	savedCaps := schemas.Captures{}
	for k, v := range r.caps {
		savedCaps[k] = v
	}
	savedMissing := map[string]string{}
	for k, v := range r.missing {
		savedMissing[k] = v
	}
	defer func() { r.caps, r.missing = savedCaps, savedMissing }()

	r.opt.Progress.Info(fmt.Sprintf("control %s: %s", c.Name, c.Title))
	first := &record.ControlRun{Experiment: exps[0].Name, Number: exps[0].Number, Control: c.Name, Title: c.Title,
		Started: r.now().UTC(), Cap: r.controlCap(c).String(), Kind: c.Kind(), Diff: r.mutantDiff(c)}
	// The thaw of a pause_for belongs to this application only: undone
	// first, it must not thaw the next experiment's pause early.
	actx, stopThaw := context.WithCancel(ctx)
	defer stopThaw()
	th := &thaw{}
	// The first experiment's base is the stack before the control: a
	// restart the control causes is the experiment's to see.
	r.noteRestarts(ctx, exps[0])
	applyErr := r.applyControl(actx, c, first, th)
	if d := schemas.ParseDuration(c.Settle); d > 0 && applyErr == nil {
		r.opt.Progress.Info(fmt.Sprintf("control %s: letting it settle for %s", c.Name, c.Settle))
		r.sleep(ctx, d)
		first.Applied = append(first.Applied, "then waited "+c.Settle+" (settle) before the experiments")
	}
	var runs []*record.ControlRun
	for i, e := range exps {
		run := first
		if i > 0 {
			run = &record.ControlRun{Experiment: e.Name, Number: e.Number, Control: c.Name, Title: c.Title,
				Started: r.now().UTC(), Cap: first.Cap, Kind: first.Kind, Diff: first.Diff, Applied: []string{"(still on since experiment " + fmt.Sprintf("%02d", exps[0].Number) + ")"}}
		}
		r.rec.Controls = append(r.rec.Controls, run)
		runs = append(runs, run)
		if applyErr != nil {
			run.Error = "the control could not be applied, so the experiment did not run under it: " + applyErr.Error()
			continue
		}
		r.opt.Progress.Experiment(e)
		if i > 0 {
			r.noteRestarts(ctx, e)
		}
		// A fresh run of the experiment: its captures are its own.
		delete(r.caps, e.Name)
		for k := range r.missing {
			if strings.HasPrefix(k, e.Name+".") {
				delete(r.missing, k)
			}
		}
		r.cap = r.controlCap(c)
		needed := neededUnderControl(e, c)
		for _, s := range e.Steps {
			skip := ""
			if !needed[s.Name] {
				skip = "no expectation depends on it while the control is on"
			}
			rs := r.stepOrSkip(ctx, e, s, skip)
			if rs == nil {
				break
			}
			run.Steps = append(run.Steps, rs)
			r.opt.Progress.StepDone(e, s, rs)
			if err := r.write(); err != nil {
				r.cap = 0
				return err
			}
		}
		r.cap = 0
		end := r.now().UTC()
		run.Ended = &end
		if ctx.Err() != nil {
			break
		}
	}
	// Undo even when applying failed half-way, and even when ctx ended:
	// the stack must not stay sabotaged.
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	last := runs[len(runs)-1]
	stopThaw()
	first.Applied = append(first.Applied, th.wait()...)
	if err := r.undoControl(uctx, c, last); err != nil {
		last.Error = joinErr(last.Error, "undoing the control: "+err.Error())
		r.opt.Progress.Info("control " + c.Name + " could not be undone: " + oneLine(err.Error()))
	}
	end := r.now().UTC()
	last.Ended = &end
	if err := r.write(); err != nil {
		return err
	}
	return ctx.Err()
}

// neededUnderControl names the steps of e that run under a control:
// those with expectations that name it, the steps whose captures or
// results they use, and every step before the last of them that acts on
// the stack (a service step, bounded jobs) or lets time pass (a wait).
// The rest — reads nobody checks, smoke checks, whatever follows the last
// expectation — would only spend the control's time.
func neededUnderControl(e *schemas.Experiment, c *schemas.Control) map[string]bool {
	need := map[string]bool{}
	var mark func(s *schemas.Step)
	mark = func(s *schemas.Step) {
		if s == nil || need[s.Name] {
			return
		}
		need[s.Name] = true
		for _, ref := range e.Inputs(s) {
			if ref.Experiment == e.Name {
				mark(e.Step(ref.Step))
			}
		}
		for _, x := range s.Expects {
			for _, ref := range x.Condition.Refs {
				if ref.Experiment == e.Name {
					mark(e.Step(ref.Step))
				}
			}
		}
		if s.Wait != nil && s.Wait.Rerun != "" {
			mark(e.Step(s.Wait.Rerun))
		}
	}
	last := -1
	for i, s := range e.Steps {
		for _, x := range s.Expects {
			if slices.Contains(x.Detects, c.Name) {
				mark(s)
				last = i
			}
		}
	}
	for i, s := range e.Steps {
		if i > last {
			break
		}
		// Every wait lets time pass as on the healthy run, so that a later
		// read sees what the pipeline had time to do (or, under a kill
		// switch, how far it fell behind in that time): without it a
		// version not there yet reads as a detection, and a lag that grows
		// with time may stay under its bound.
		acts := s.Kind == schemas.StepCompose || s.Kind == schemas.StepWait ||
			s.Kind == schemas.StepLab && s.Lab != nil && s.Lab.Action != "smoke"
		if acts {
			mark(s)
		}
	}
	return need
}

// applyControl sabotages the stack as c says, each action through the
// face that runs it: services stopped and paused, jobs cancelled, a
// job's mutant submitted in its place.
func (r *Runner) applyControl(ctx context.Context, c *schemas.Control, run *record.ControlRun, th *thaw) error {
	if len(c.Stop)+len(c.Pause) > 0 && r.opt.Compose == nil {
		if r.opt.ComposeErr != nil {
			return r.opt.ComposeErr
		}
		return errors.New("service actions need the stack's face, which this run does not have")
	}
	for _, a := range []struct {
		action string
		svcs   []string
	}{{"stop", c.Stop}, {"pause", c.Pause}} {
		for _, svc := range a.svcs {
			text, err := r.serviceAction(ctx, a.action, svc)
			run.Applied = append(run.Applied, text)
			if err != nil {
				return err
			}
		}
	}
	if d := schemas.ParseDuration(c.PauseFor); d > 0 && len(c.Pause) > 0 {
		// Thawed while the experiment runs: the pipeline catches up, late.
		// Undo unpauses again, which is harmless for a thawed service.
		th.done = make(chan struct{})
		go func() {
			defer close(th.done)
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, svc := range c.Pause {
				msg, err := r.serviceAction(context.WithoutCancel(ctx), "unpause", svc)
				if err != nil {
					msg += " failed: " + oneLine(err.Error())
				}
				r.opt.Progress.Info(fmt.Sprintf("control %s, after %s: %s", c.Name, c.PauseFor, msg))
				th.mu.Lock()
				th.applied = append(th.applied, fmt.Sprintf("after %s: %s", c.PauseFor, msg))
				th.mu.Unlock()
			}
		}()
	}
	if lt := c.Latency; lt != nil {
		links, ok := r.opt.Compose.(Links)
		if !ok {
			return fmt.Errorf("slowing the link from %s to %s needs the native stack's link proxy; this run's stack routes no link through a proxy (compose and Kubernetes do not)", lt.From, lt.To)
		}
		text, err := links.SlowLink(ctx, lt.Link(), schemas.ParseDuration(lt.Add))
		if err != nil {
			return err
		}
		run.Applied = append(run.Applied, text)
	}
	cancel := c.Cancel
	if m := c.Mutant; m != nil && m.Mode == schemas.ModeBatch {
		// A bounded job runs only when a batch step runs it: from now on,
		// as its mutant.
		if r.batchMutant == nil {
			r.batchMutant = map[string]*schemas.Control{}
		}
		r.batchMutant[m.Name] = c
		run.Applied = append(run.Applied, fmt.Sprintf("bounded job %s runs as %s in every batch step while the control is on", m.Name, c.MutantFile()))
		return nil
	}
	if c.Mutant != nil {
		cancel = append(slices.Clone(cancel), c.Mutant.Name)
	}
	for _, job := range cancel {
		if r.flink == nil {
			return errors.New("no Flink to cancel a job on")
		}
		id, err := r.jobID(ctx, job)
		if err != nil {
			return err
		}
		if err := r.flink.Cancel(ctx, id); err != nil {
			return fmt.Errorf("cancel job %s: %w", job, err)
		}
		run.Applied = append(run.Applied, fmt.Sprintf("PATCH /jobs/%s?mode=cancel (job %s)", id, job))
		if err := r.awaitJobState(ctx, id, func(s string) bool { return !flinkapi.Active(s) }, time.Minute); err != nil {
			return fmt.Errorf("job %s was asked to cancel: %w", job, err)
		}
	}
	if m := c.Mutant; m != nil {
		sent, what, err := r.mutantScript(c)
		if err != nil {
			return err
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		sr, err := r.flink.RunScript(sctx, r.jobName(m.Name), sent, 10)
		cancel()
		if err == nil && sr.JobID == "" {
			err = errors.New("the script ran but submitted no job")
		}
		if err != nil {
			return fmt.Errorf("submit the mutant of job %s (%s): %w", m.Name, what, err)
		}
		run.Applied = append(run.Applied, fmt.Sprintf("submitted %s through the SQL gateway in place of job %s (%s)", what, m.Name, sr.JobID))
		ended := ""
		if err := r.awaitJobState(ctx, sr.JobID, func(s string) bool {
			if flinkapi.Ended(s) {
				ended = s
			}
			return s == "RUNNING" || ended != ""
		}, 3*time.Minute); err != nil {
			return fmt.Errorf("the mutant of job %s: %w", m.Name, err)
		}
		switch {
		case ended != "" && c.Auto != nil:
			// A job that cannot run is the mutant's fault, for the lab
			// to notice (its job's state, its rows), not a control that
			// failed to apply.
			run.Applied = append(run.Applied, fmt.Sprintf("the mutant's job %s ended %s before it ran: the experiments run against it as it is", sr.JobID, ended))
		case ended != "":
			return fmt.Errorf("the mutant of job %s ended %s before it ran (Flink's exceptions for job %s say why)", m.Name, ended, sr.JobID)
		}
	}
	return nil
}

// mutantScript is the statements that submit c's mutant and what they
// are: the rendered control's script, or, for an automatic mutant, the
// job's own script with its INSERT (or statement set) replaced by the
// mutant's.
func (r *Runner) mutantScript(c *schemas.Control) (sent []string, what string, err error) {
	if c.Auto == nil {
		sent, _, err = r.script("control "+c.Name, c.MutantFile())
		return sent, c.MutantFile(), err
	}
	file := schemas.JobFile(c.Auto.Job)
	if sent, _, err = r.script("mutant "+c.Name, file); err != nil {
		return nil, "", err
	}
	for i := len(sent) - 1; i >= 0; i-- {
		switch (flinksql.Statement{Text: sent[i]}).Keyword() {
		case "INSERT", "EXECUTE", "BEGIN":
			out := slices.Clone(sent)
			out[i] = c.Auto.Statement
			return out, file + " with the mutant's statement", nil
		}
	}
	return nil, "", fmt.Errorf("mutant %s: %s has no INSERT to replace", c.Name, file)
}

// thaw is what a pause_for did while the experiment ran: the unpause,
// from its own goroutine, kept apart from the record until it has ended.
type thaw struct {
	done    chan struct{}
	mu      sync.Mutex
	applied []string
}

// wait returns the thaw's actions once its goroutine has ended (at once
// when there is none).
func (t *thaw) wait() []string {
	if t.done != nil {
		<-t.done
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.applied
}

// serviceAction runs one action of a control on a service through the
// stack's face and returns it as the record shows it.
func (r *Runner) serviceAction(ctx context.Context, action, svc string) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	out, err := r.opt.Compose.Service(sctx, action, svc)
	if err != nil {
		err = fmt.Errorf("%s %s: %w", action, svc, err)
	}
	return actionText(r.opt.Compose.Command(action, svc), out), err
}

// undoControl thaws the paused services, starts the stopped ones again
// (in reverse order), cancels a mutant, submits again every streaming
// job that no longer runs (a cancelled one, a mutant's job, or one whose
// restarts the control used up), and waits until they run.
func (r *Runner) undoControl(ctx context.Context, c *schemas.Control, run *record.ControlRun) error {
	var errs []error
	undo := func(action string, svcs []string) {
		for i := len(svcs) - 1; i >= 0 && r.opt.Compose != nil; i-- {
			text, err := r.serviceAction(ctx, action, svcs[i])
			run.Undone = append(run.Undone, text)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	undo("unpause", c.Pause)
	undo("start", c.Stop)
	if lt := c.Latency; lt != nil {
		if links, ok := r.opt.Compose.(Links); ok {
			text, err := links.RestoreLink(ctx, lt.Link())
			if err != nil {
				errs = append(errs, err)
			} else {
				run.Undone = append(run.Undone, text)
			}
		}
	}
	if r.lab.Stack.Flink == nil || r.flink == nil {
		return errors.Join(errs...)
	}
	if m := c.Mutant; m != nil && m.Mode == schemas.ModeBatch {
		// The mutant's result stays in the job's table until the job runs
		// again: run it now, so the lab serves the right result.
		delete(r.batchMutant, m.Name)
		if job := r.lab.Job(m.Name); job != nil {
			r.opt.Progress.Info(fmt.Sprintf("control %s: running bounded job %s's own SQL again", c.Name, m.Name))
			b := r.batchJob(ctx, job)
			if b.err != "" {
				errs = append(errs, fmt.Errorf("run bounded job %s's own SQL again: %s", m.Name, b.err))
			} else {
				run.Undone = append(run.Undone, fmt.Sprintf("ran bounded job %s's own SQL again (%s), so that its table holds the job's result", m.Name, b.id))
			}
		}
	} else if m != nil {
		// The mutant runs under the job's name: cancelled first, so that
		// the job's own SQL is submitted again below and never writes
		// beside it.
		if jobs, err := r.flink.Jobs(ctx); err != nil {
			errs = append(errs, err)
		} else if found, ok := flinkapi.FindJob(jobs, r.jobName(m.Name)); ok && flinkapi.Active(found.State) {
			if err := r.cancelForResubmit(ctx, found.ID); err != nil {
				errs = append(errs, fmt.Errorf("cancel the mutant of job %s: %w", m.Name, err))
			} else {
				run.Undone = append(run.Undone, fmt.Sprintf("PATCH /jobs/%s?mode=cancel (the mutant of job %s)", found.ID, m.Name))
			}
		}
	}
	before := map[string]string{}
	for _, j := range r.rec.Jobs {
		before[j.Name] = j.ID
	}
	jobs := r.rec.Jobs
	r.submitJobs(ctx)
	again := r.rec.Jobs
	r.rec.Jobs = jobs
	for _, j := range again {
		switch {
		case j.How == "failed":
			errs = append(errs, fmt.Errorf("job %s could not be submitted again: %s", j.Name, j.Error))
		case j.How == "submitted" && j.ID != before[j.Name]:
			run.Undone = append(run.Undone, fmt.Sprintf("submitted job %s again through the SQL gateway (%s)", j.Name, j.ID))
			r.rec.Jobs = append(r.rec.Jobs, record.Job{Name: j.Name, Mode: j.Mode, ID: j.ID, How: "submitted again after control " + c.Name})
		}
		if j.ID != "" {
			if err := r.awaitJobState(ctx, j.ID, func(s string) bool { return s == "RUNNING" }, 3*time.Minute); err != nil {
				errs = append(errs, fmt.Errorf("job %s: %w", j.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// awaitJobState polls a job until its state satisfies ok and, for a
// running one, every vertex runs.
func (r *Runner) awaitJobState(ctx context.Context, id string, ok func(string) bool, within time.Duration) error {
	deadline := r.now().Add(within)
	last := ""
	for {
		st, err := r.flink.JobStatus(ctx, id, []string{flinkapi.ShowState, flinkapi.ShowVertices}, 0)
		if err == nil {
			last = st.State
			running := true
			for _, v := range st.Vertices {
				running = running && v.Status == "RUNNING"
			}
			if ok(st.State) && (st.State != "RUNNING" || running) {
				return nil
			}
		} else {
			last = err.Error()
		}
		if !r.now().Before(deadline) {
			return fmt.Errorf("still %s after %s", last, within)
		}
		r.sleep(ctx, time.Second)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func actionText(cmd, out string) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return cmd
	}
	return cmd + " → " + oneLine(out)
}

// verdicts sets, for every expectation of e's healthy run, its verdict
// under each control it names (or its sanity reason).
func (r *Runner) verdicts(e *schemas.Experiment, healthy *record.Experiment) {
	var runs []*record.ControlRun
	for _, c := range r.rec.Controls {
		if c.Experiment == e.Name {
			runs = append(runs, c)
		}
	}
	// A resumed record may hold this experiment's verdicts already.
	kept := r.rec.Verdicts[:0]
	for _, v := range r.rec.Verdicts {
		if v.Experiment != e.Name {
			kept = append(kept, v)
		}
	}
	r.rec.Verdicts = kept
	for _, s := range e.Steps {
		var hs *record.Step
		for _, x := range healthy.Steps {
			if x.Name == s.Name {
				hs = x
			}
		}
		for i, x := range s.Expects {
			base := record.Verdict{Experiment: e.Name, Number: e.Number, Step: s.Name, Index: i, Message: x.Message, Healthy: record.Outcome(hs, i)}
			if len(x.Detects) == 0 {
				v := base
				v.Verdict, v.Why = record.VerdictNoControl, ""
				if x.Sanity != "" {
					v.Verdict, v.Why = record.VerdictSanity, x.Sanity
				}
				r.rec.Verdicts = append(r.rec.Verdicts, v)
				continue
			}
			for _, cn := range x.Detects {
				v := base
				v.Control = cn
				var run *record.ControlRun
				for _, c := range runs {
					if c.Control == cn {
						run = c
					}
				}
				v.Under, v.Verdict, v.Seen = record.Judge(hs, run, s.Name, i)
				r.rec.Verdicts = append(r.rec.Verdicts, v)
			}
		}
	}
}
