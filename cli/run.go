package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/runtime/compose"
	"github.com/labgen/labgen/runtime/hostinfo"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/runtime/runner"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "run",
		args:    "OUT [--experiment N|NAME ...] [--resume RECORD | --repeat N] [--no-up] [--native | --kubernetes [--kubectl PATH]] [--strict] [--controls [--control-cap DURATION]] [--mutants FILE] [--lab LAB_DIR] [--no-check | --check] " + endpointArgs,
		summary: "run a rendered lab's experiments and write the lab record",
		help: `
Runs the experiments of the rendered lab directory OUT step by step and
writes what it observed into a lab record, OUT/records/<id>/record.md and
record.json. Each finished step is on disk before the next one starts: a
run stopped at any point keeps every finished step, and --resume RECORD
continues after the last one.

Unless --no-up is given, the lab is brought up first (docker compose up,
waiting until every service is healthy; with --native, or when a native
stack already runs for OUT, labgen up --native instead: no Docker, and a
compose step stops or starts the native process). The lab's streaming Flink jobs
that are not running are submitted through the SQL gateway, and their job
IDs are recorded. Before anything is submitted (compose starts the
job-submitter and batch-loop services only after it; the native stack
submits only after it), the engines check what
the lab runs, as labgen validate --engines does: Flink's planner plans
every job through the SQL gateway and the databases EXPLAIN the presets
and query steps; a statement an engine rejects stops the run with its
diagnostic, at the lab's own line with --lab LAB_DIR (the lab's source,
when it still renders OUT's lab.json), else at the rendered file that
would run. --no-check skips the check. On a native stack a check that
passed is not run again while nothing it checked has changed (the
rendered jobs, tables, presets and steps, the engines' configuration, the
experiments, labgen, the running stack: a variant of the producer alone
is not checked again); --check runs it anyway.

With --kubernetes the lab is its Kubernetes base (labgen up --kubernetes,
unless --no-up): the Flink operator runs the streaming jobs (none is
submitted, and --controls, whose undoing submits jobs, is refused), a
compose step that stops the taskmanager deletes a TaskManager pod of the
first streaming job's cluster, and one that stops another service scales
its StatefulSet or Deployment to 0 (start: back to 1). labgen reaches the
services through kubectl port-forwards of its own, on free local ports,
and closes them when the run ends: MySQL or PostgreSQL, ClickHouse's
native port, the SQL gateway, the REST API of the Flink cluster most of
the experiments' steps read (each streaming job runs in a cluster of its
own, job-NAME; the bounded jobs in the session cluster flink), and each
Kafka broker pod through its listener for port-forwards, whose brokers
advertise 127.0.0.1:19094 and up. An endpoint flag replaces its
port-forward. A lab directory with a Kubernetes base and no compose or
native stack running for it is run with --kubernetes: --no-up without it
is refused, since labgen would submit the operator's jobs a second time.

Endpoints default to the lab's services on 127.0.0.1 at the ports of
lab.json, as the read-only users of OUT/.env; the flags point a run at any
reachable services instead. --mysql takes host:port,
mysql://user:password@host:port/db or a go-sql-driver DSN
(user:password@tcp(host:port)/db); --postgres host:port or
postgres://user:password@host:port/db; --clickhouse host:port of the native
protocol, clickhouse://user:password@host:port/db or
http://user:password@host:8123/db; what a value leaves out (user,
password, database) is the lab's. --kafka takes one or more
comma-separated brokers. Passwords never reach the record.

Failures are recorded, not hidden: the exit code is 0 only when every step
ran without error (3 otherwise). Expectations that do not hold and waits
that time out are results, recorded as such, and do not fail the run,
unless --strict is given: then an expectation that did not hold exits 3
too (CI runs every lab so, since a healthy pipeline holds them all).

--controls shows that the expectations can fail: every experiment runs on
the healthy stack first; then each negative control (the lab's control
blocks: stop or pause a service, cancel a streaming job, or run a mutant
of a job's SQL in its place) is applied once, the experiments whose
expectations name it run again under it (only the steps those
expectations need, waits and step timeouts capped by --control-cap,
default 35s), and it is undone (the service started or thawed, the job's
own SQL submitted again and waited for until it runs). Per expectation
and control the record says "shown able to fail" (held when healthy,
false under the control on a result that exists), "blind" (held under
the control too) or "not checkable" (the step skipped, failed or
returned nothing, or the condition could not be evaluated: that shows
nothing), with the values each part of the condition saw; the run prints
the counts on its last lines. With --strict, a blind expectation exits 3,
and so does one that held and that no control showed able to fail
(sanity checks aside). The step counts of that summary are the healthy
runs'; what happened under each control is in the record's Controls
section. A control costs its experiments' capped run time plus a job
submitted again (a minute or two).

--mutants FILE adds the mutants that Flink's own parser derives from the
lab's streaming jobs (prove/flink/prove-flink.sh --mutants writes FILE;
make mutants LAB=... does it all): a LEFT JOIN made INNER, a column made
NULL or constant, one key in ten lost, the output emitted twice. Each
runs as a control aimed at the expectations that name one in the
experiments that read what its job writes (its table, topic or
ClickHouse table, or a job fed by it; a step showing the jobs, the
smoke checks and the batch jobs count as reading it), and the record
gives the mutation score: how many some expectation killed, by
which step, and each survivor with its diff. An expectation blind to an
automatic mutant is not a blind expectation (most claims cannot see most
mutants): the score, not --strict, says how much the lab notices.

--repeat N runs the experiments N times, one run after another on the
stack brought up (and checked, and its jobs submitted) once: a reader
can cite a set, not a single run. Each run is a full record of its own,
OUT/records/<set>/<set>-1 … -N, and beside them set.json and set.md
(rewritten after each run) say which lab (its lab.json hash) and labgen
ran, every run in order with its status (a run that failed is kept and
shown failed, and the next run starts), and per measure the median
(of an even N, the mean of the middle two), the least and greatest
value and how many runs measured it, per expectation in how many runs
it held ("4/5") and which not. Data the earlier runs wrote stays in the
tables, as in a sweep on one stack. labgen record show and record
publish take the set's directory: its page opens with the measures and
expectations and links each run's own page. The exit code comes after
every run ran and the set is written: 3 when any run failed by the rule
above (with --strict, the strict rule), as it would have alone. An
interrupt ends the set where it is; a set is not resumed, so --repeat
does not go with --resume.

Examples:
  labgen run out/orders
  labgen run out/orders --experiment 3 --experiment trace_one_order
  labgen run out/orders --native
  labgen run out/orders --native --controls --strict
  labgen run out/orders --no-up --mysql 'mysql://reader:secret@10.0.0.5:3306/shop'
  labgen run out/orders --resume out/orders/records/20261129-100000-ab12
  labgen run out/orders --native --experiment 3 --repeat 5 --strict`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			var exps stringList
			fs.Var(&exps, "experiment", "run only experiment `N|NAME` (repeatable)")
			resume := fs.String("resume", "", "continue the record at `RECORD` (its directory or record.json)")
			noUp := fs.Bool("no-up", false, "do not run docker compose up; use the services as they are")
			nat := fs.Bool("native", false, "bring the lab up without Docker, as local processes (labgen up --native)")
			k8s := fs.Bool("kubernetes", false, "run on the lab's Kubernetes base (labgen up --kubernetes), through port-forwards of labgen's own")
			kubectl := fs.String("kubectl", "", "with --kubernetes: the kubectl `PATH` (default: kubectl from PATH)")
			strict := fs.Bool("strict", false, "exit 3 also when an expectation did not hold (for CI on a healthy pipeline)")
			noCheck := fs.Bool("no-check", false, "do not ask the engines to check the jobs, presets and query steps before submitting")
			forceCheck := fs.Bool("check", false, "ask the engines even when they passed this lab's check on this native stack and nothing they checked has changed")
			labSrc := fs.String("lab", "", "the lab's source `LAB_DIR`, so that the engine check points at its lines")
			controls := fs.Bool("controls", false, "run each experiment again under the negative controls its expectations name, and record whether each expectation was shown able to fail")
			controlCap := fs.Duration("control-cap", runner.DefaultControlCap, "with --controls: the longest a wait or step may take while a control is on")
			mutants := fs.String("mutants", "", "also run, as mutant controls aimed at the expectations that name a control in the experiments that read their job's output, the mutants in `FILE` (the output of prove/flink/prove-flink.sh --mutants on the lab's streaming jobs); implies --controls, and the record gives the mutation score")
			repeat := fs.Int("repeat", 0, "run the experiments `N` times on the stack brought up once, each run a record of its own, and write the set of them, set.json and set.md (default: one run, no set)")
			ep := addEndpointFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("run takes one rendered lab directory")
				}
				if err := repeatFlag(fs, *repeat, *resume); err != nil {
					return err
				}
				if *k8s && *nat {
					return usagef("--kubernetes and --native exclude each other")
				}
				if *kubectl != "" && !*k8s {
					return usagef("--kubectl goes with --kubernetes")
				}
				return runLab(ctx, env, args[0], ep, runConfig{experiments: exps, resume: *resume, noUp: *noUp, native: *nat, kubernetes: *k8s, kubectl: *kubectl, strict: *strict, submit: true, check: !*noCheck, forceCheck: *forceCheck, source: *labSrc, controls: *controls || *mutants != "", controlCap: *controlCap, repeat: *repeat, mutants: *mutants}, "run")
			}
		},
	})
}

// repeatFlag checks --repeat: at least 1 when given, and not with
// --resume (a set is new runs; --resume continues one record, and a set
// is not continued).
func repeatFlag(fs *flag.FlagSet, repeat int, resume string) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "repeat" })
	switch {
	case given && repeat < 1:
		return usagef("--repeat %d: a set needs at least one run (--repeat N, N ≥ 1)", repeat)
	case given && resume != "":
		return usagef("--repeat starts a set of new runs and --resume continues one record: they do not go together (a set is not resumed; --resume a run of a set continues its own record, outside the set's figures)")
	}
	return nil
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// endpointArgs are addEndpointFlags' flags for a usage line.
const endpointArgs = "[--mysql ADDR|URL|DSN] [--postgres ADDR|URL] [--clickhouse ADDR|URL] [--kafka ADDR[,ADDR…]] [--flink URL] [--gateway URL]"

// endpointFlags are the flags that point a run at services.
type endpointFlags struct {
	mysql, postgres, clickhouse, kafka, flink, gateway string
}

func addEndpointFlags(fs *flag.FlagSet) *endpointFlags {
	f := &endpointFlags{}
	fs.StringVar(&f.mysql, "mysql", "", "MySQL `ADDR`, mysql:// URL or DSN (default 127.0.0.1 and the lab's port, reader user)")
	fs.StringVar(&f.postgres, "postgres", "", "PostgreSQL `ADDR` or postgres:// URL (default 127.0.0.1 and the lab's port, reader user)")
	fs.StringVar(&f.clickhouse, "clickhouse", "", "ClickHouse native `ADDR`, clickhouse:// or http:// URL (default 127.0.0.1 and the lab's port, reader user)")
	fs.StringVar(&f.kafka, "kafka", "", "Kafka bootstrap `ADDR[,ADDR…]` (default 127.0.0.1 and the lab's port)")
	fs.StringVar(&f.flink, "flink", "", "Flink REST `URL` (default http://127.0.0.1 and the lab's UI port)")
	fs.StringVar(&f.gateway, "gateway", "", "Flink SQL gateway `URL` (default http://127.0.0.1 and the lab's gateway port)")
	return f
}

// endpoints are the lab's endpoints with the flags applied (labdir
// interprets them, as for every command).
func (f *endpointFlags) endpoints(lab *labdir.Lab) (labdir.Endpoints, error) {
	e, err := lab.ResolveEndpoints(nil, labdir.Overrides{
		DB:    map[string]string{query.MySQL: f.mysql, query.Postgres: f.postgres, query.ClickHouse: f.clickhouse},
		Kafka: f.kafka, Flink: f.flink, Gateway: f.gateway})
	if err != nil {
		return e, usagef("%v", err)
	}
	return e, nil
}

type runConfig struct {
	experiments []string
	resume      string
	noUp        bool
	native      bool
	kubernetes  bool
	kubectl     string // --kubectl, for --kubernetes
	strict      bool
	submit      bool
	// controls runs the negative controls (runner.Options.Controls).
	controls   bool
	controlCap time.Duration
	// check asks the engines (enginecheck) before anything is submitted;
	// source is the lab's source directory, for its lines.
	check  bool
	source string
	// forceCheck asks the engines even when a passed check is remembered
	// (checkmemo.go).
	forceCheck bool
	// only replaces the lab's experiments (smoke, batch).
	only *schemas.Experiment
	// repeat > 0 runs the experiments that many times on the stack
	// brought up once and writes a set of the runs (runSet).
	repeat int
	// mutants is a file of automatic mutants (--mutants) run as controls.
	mutants string
}

// runLab is labgen run (and smoke, batch): up, run, report.
func runLab(ctx context.Context, env *Env, dir string, ep *endpointFlags, rc runConfig, name string) error {
	lab, err := labdir.Load(dir)
	if err != nil {
		return err
	}
	// Port-forwards (--kubernetes) fill in the endpoints the flags leave
	// empty; the caller's flags stay as they are.
	epc := *ep
	ep = &epc
	prog := newProgress(env)
	endpoints, err := ep.endpoints(lab)
	if err != nil {
		return err
	}
	if rc.only != nil {
		l := *lab.Lab
		l.Experiments = []*schemas.Experiment{rc.only}
		only := *lab
		only.Lab = &l
		lab = &only
	}
	checked := false
	check := func(ctx context.Context) error {
		checked = true
		model, files, sources := lab.Lab, map[string]*hcl.File(nil), (func(hcl.Range, string) *schemas.SQLSource)(nil)
		if rc.source != "" {
			src, parser, err := sourceForRun(ctx, env, rc.source, lab)
			if err != nil {
				return err
			}
			if src != nil {
				model, files, sources = src, parser.Files(), parser.SQLSourceAt
			}
		}
		key, lay, memo := checkKey(dir, model, ep)
		if memo && !rc.forceCheck {
			if at, ok := checkPassed(lay, key); ok {
				fmt.Fprintf(env.Stderr, "The engines passed this lab's check on this stack at %s, and nothing they checked has changed since: not asked again (--check asks them).\n", at.Format("15:04:05Z"))
				return nil
			}
		}
		err := checkEngines(ctx, env, env.Stderr, model, files, sources, dir, ep)
		if err == nil && memo {
			rememberCheck(lay, key)
		}
		if err != errNothingChecked {
			return err
		}
		return nil
	}
	f := chooseFace(dir, rc.native, rc.kubernetes, rc.kubectl, nativeIfRunning)
	rs := runSetup{lab: lab, noUp: rc.noUp, submit: rc.submit, controls: rc.controls, experiments: rc.experiments, resume: rc.resume, ep: ep, info: prog.Info}
	if rc.check {
		rs.check = check
	}
	rf, err := f.ForRun(ctx, env, rs)
	if err != nil {
		return err
	}
	if rf.close != nil {
		defer rf.close()
	}
	submit := rc.submit && rf.submit
	// Endpoints follow the stack that runs (the native ClickHouse speaks
	// HTTP only), unless flags said otherwise.
	if endpoints, err = ep.endpoints(lab); err != nil {
		return err
	}
	if rc.check && !checked {
		if err := check(ctx); err != nil {
			return err
		}
	}
	if rc.mutants != "" {
		if err := addAutoMutants(env, lab.Lab, rc.mutants); err != nil {
			return err
		}
	}
	// A run asks the engines what ran (versions, Flink's settings); smoke
	// and batch, quick checks, do not.
	opt := runner.Options{Lab: lab, Endpoints: endpoints, Experiments: rc.experiments, Resume: rc.resume,
		SubmitJobs: submit, Version: Version, Command: env.commandLine(),
		Where: hostinfo.Where(env.Environ), Host: hostinfo.Host(hostinfo.Linux),
		Progress: prog, Stack: rf.stack, StackExits: rf.exits, Versions: rf.versions, JVMs: rf.jvms, Provenance: name == "run",
		Controls: rc.controls, ControlCap: rc.controlCap}
	if rf.services != nil {
		opt.Compose = rf.services
	} else {
		opt.ComposeErr = rf.servicesErr
	}
	if rc.repeat > 0 {
		return runSet(ctx, env, dir, lab, opt, rc)
	}
	r, err := runner.New(opt)
	if errors.Is(err, runner.ErrUsage) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	md := filepath.Join(r.Dir(), record.MarkdownName)
	fmt.Fprintf(env.Stderr, "Record: %s\n", md)
	rec, err := r.Run(ctx)
	if ctx.Err() != nil {
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("interrupted; the finished steps are in %s, and labgen run %s --resume %s continues", md, dir, r.Dir())}
	}
	if err != nil {
		return err
	}
	c := rec.Count()
	fmt.Fprintf(env.Stdout, "%s\n", c.Summary())
	if len(rec.Verdicts) > 0 {
		line := rec.VerdictSummary()
		if score := rec.MutationScore(); score != "" {
			line += "; " + score
		}
		fmt.Fprintf(env.Stdout, "Controls: %s.\n", line)
	}
	fmt.Fprintf(env.Stdout, "%s\n", md)
	if why := rec.Failure(rc.strict); why != "" {
		return &exitError{code: ExitRunFailed, msg: why}
	}
	return nil
}

// runSet is labgen run --repeat N, on the stack runLab brought up and
// checked: N runs one after another, each a record of its own in the
// set's directory (OUT/records/<set>/<set>-K), and set.json and set.md
// beside them, written before the first run and again after each. A run
// that fails is kept and the next one starts; an interrupt ends the set
// where it is. Once every run ran and the set is written, the exit code
// is 3 when any run failed by labgen run's rule (Record.Failure).
func runSet(ctx context.Context, env *Env, dir string, lab *labdir.Lab, opt runner.Options, rc runConfig) error {
	began := time.Now()
	id := runner.NewID(began)
	setDir := filepath.Join(lab.Dir, "records", id)
	// The command as typed, its secrets masked as each record masks them.
	command := runner.MaskerFor(opt).MaskString(opt.Command)
	set := record.NewSet(id, record.Lab{Name: lab.Lab.Name, Title: lab.Lab.Title, Hash: lab.Hash()}, Version, command, rc.repeat, rc.strict, began)
	setMD := filepath.Join(setDir, record.SetMarkdownName)
	interrupted := false
	for k := 1; k <= rc.repeat; k++ {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		left := ""
		if k > 1 {
			per := time.Since(began) / time.Duration(k-1)
			if rest := (per * time.Duration(rc.repeat-k+1)).Round(time.Minute); rest > 0 {
				left = fmt.Sprintf("; about %s left", rest)
			}
		}
		fmt.Fprintf(env.Stderr, "\n== run %d of %d%s\n", k, rc.repeat, left)
		o := opt
		o.RecordsDir, o.ID, o.Command = setDir, fmt.Sprintf("%s-%d", id, k), fmt.Sprintf("%s (run %d of %d)", opt.Command, k, rc.repeat)
		r, err := runner.New(o)
		if err != nil {
			if k == 1 {
				// The same for every run (an unknown experiment): no set.
				if errors.Is(err, runner.ErrUsage) {
					return usagef("%v", err)
				}
				return err
			}
			fmt.Fprintf(env.Stderr, "Run %d of %d failed before it began: %v\n", k, rc.repeat, err)
			if err := set.Add(nil, "", err); err != nil {
				return err
			}
		} else {
			if k == 1 {
				if err := record.WriteSet(setDir, set); err != nil {
					return err
				}
				fmt.Fprintf(env.Stderr, "Set: %s\n", setMD)
			}
			fmt.Fprintf(env.Stderr, "Record: %s\n", filepath.Join(r.Dir(), record.MarkdownName))
			rec, runErr := r.Run(ctx)
			if err := set.Add(rec, filepath.Base(r.Dir()), runErr); err != nil {
				return err
			}
		}
		run := set.Runs[len(set.Runs)-1]
		line := fmt.Sprintf("Run %d of %d: %s", k, rc.repeat, run.Status)
		if run.Why != "" {
			line += " (" + firstLine(run.Why) + ")"
		}
		if recs := set.Records(); recs[len(recs)-1] != nil {
			line += ". " + recs[len(recs)-1].Count().Summary()
		}
		fmt.Fprintln(env.Stdout, line)
		if err := record.WriteSet(setDir, set); err != nil {
			return err
		}
		if ctx.Err() != nil {
			interrupted = true
			break
		}
	}
	if len(set.Runs) == 0 {
		return &exitError{code: ExitRunFailed, msg: "interrupted before the first run began"}
	}
	set.Finish(time.Now(), interrupted)
	if err := record.WriteSet(setDir, set); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, set.Summary())
	for _, m := range set.Measures {
		fmt.Fprintf(env.Stdout, "  %02d %s: %s\n", m.Number, m.Name, m.Text(m.Unit))
	}
	fmt.Fprintln(env.Stdout, setMD)
	if interrupted {
		last := set.Runs[len(set.Runs)-1]
		if last.Status != record.SetRunInterrupted || last.Dir == "" {
			return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("interrupted after run %d of %d; the runs so far are in %s (a set is not resumed)", last.N, rc.repeat, setMD)}
		}
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("interrupted in run %d of %d; the runs so far are in %s (a set is not resumed; labgen run %s --resume %s continues that run's own record, outside the set)", last.N, rc.repeat, setMD, dir, filepath.Join(setDir, last.Dir))}
	}
	if failed := set.Failed(); len(failed) > 0 {
		var whys []string
		for _, r := range failed {
			whys = append(whys, fmt.Sprintf("run %d: %s", r.N, firstLine(r.Why)))
		}
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("%d of %d run(s) failed; every run is in the set:\n  %s", len(failed), len(set.Runs), strings.Join(whys, "\n  "))}
	}
	return nil
}

// composeRuns tells whether a container of the lab's compose stack runs
// (one docker compose ps; no docker, no stack).
func composeRuns(ctx context.Context, c *compose.Compose) bool {
	if c == nil {
		return false
	}
	svcs, err := c.PS(ctx)
	if err != nil {
		return false
	}
	for _, s := range svcs {
		if s.State == "running" {
			return true
		}
	}
	return false
}

// progress shows a run on stderr: a spinner with the elapsed time (or a
// countdown during waits) on a terminal, one line per step otherwise.
type progress struct {
	w        io.Writer
	terminal bool

	mu      sync.Mutex
	label   string
	start   time.Time
	until   time.Time
	waitMsg string
	stop    chan struct{}
	done    chan struct{}
}

func newProgress(env *Env) *progress { return &progress{w: env.Stderr, terminal: env.Terminal} }

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *progress) Info(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	// What follows an Info line (a control's undo waiting for a result)
	// belongs to no step: it must not wear the last step's name.
	p.label = ""
	fmt.Fprintf(p.w, "%s\n", msg)
}

func (p *progress) Experiment(e *schemas.Experiment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "\n%02d %s\n", e.Number, e.Title)
}

func (p *progress) Skipped(e *schemas.Experiment, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "   skipped: %s\n", why)
}

func (p *progress) Step(e *schemas.Experiment, s *schemas.Step) {
	p.mu.Lock()
	p.label = s.Name
	if s.Title != "" {
		p.label += " (" + s.Title + ")"
	}
	p.start, p.until, p.waitMsg = time.Now(), time.Time{}, ""
	if !p.terminal {
		p.mu.Unlock()
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	stop, done := p.stop, p.done
	p.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			p.mu.Lock()
			line := fmt.Sprintf("   %s %s %s", spinner[i%len(spinner)], p.label, time.Since(p.start).Round(100*time.Millisecond))
			if !p.until.IsZero() {
				label := p.label
				if label != "" {
					label += ":"
				}
				line = fmt.Sprintf("   %s %s %s, %s left", spinner[i%len(spinner)], label, p.waitMsg, time.Until(p.until).Round(time.Second))
			}
			fmt.Fprintf(p.w, "\r\033[K%s", line)
			p.mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
}

func (p *progress) Waiting(until time.Time, attempt int, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until, p.waitMsg = until, what
	if !p.terminal && (attempt <= 1) {
		if p.label == "" {
			fmt.Fprintf(p.w, "   … %s\n", what)
		} else {
			fmt.Fprintf(p.w, "   … %s: %s\n", p.label, what)
		}
	}
}

func (p *progress) StepDone(e *schemas.Experiment, s *schemas.Step, r *record.Step) {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	mark := map[string]string{record.StatusOK: "ok", record.StatusError: "FAILED", record.StatusTimedOut: "timed out", record.StatusSkipped: "skipped"}[r.Status]
	line := fmt.Sprintf("   %-9s %s", mark, s.Name)
	if r.Status != record.StatusSkipped {
		line += " (" + record.Duration(r.DurationMS) + ")"
	}
	switch {
	case r.Error != "":
		line += ": " + firstLine(r.Error)
	case r.Skipped != "":
		line += ": " + r.Skipped
	}
	for _, x := range r.Expectations {
		if !x.Held {
			line += "\n             expectation not held: " + x.Message
		}
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) clear() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// addAutoMutants reads --mutants FILE into the lab's controls, after the
// engine check (prove-flink planned each mutant already), and says what
// it left out.
func addAutoMutants(env *Env, lab *schemas.Lab, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return usagef("--mutants: %v", err)
	}
	defer f.Close()
	ms, skipped, err := schemas.ReadAutoMutants(f)
	if err != nil {
		return usagef("--mutants %s: %v", file, err)
	}
	if len(ms) == 0 {
		return usagef("--mutants %s: no mutant Flink planned (%d left out)", file, len(skipped))
	}
	if err := lab.AddAutoMutants(ms); err != nil {
		return usagef("--mutants %s: %v", file, err)
	}
	fmt.Fprintf(env.Stderr, "Automatic mutants: %d from %s, each run as a control aimed at the measuring expectations of the experiments that read what its job writes:\n", len(ms), file)
	// Every mutant of a job is aimed at the same experiments: its first
	// says which.
	var jobs []string
	first, count := map[string]*schemas.Control{}, map[string]int{}
	for _, m := range ms {
		if count[m.Job]++; count[m.Job] == 1 {
			jobs = append(jobs, m.Job)
			first[m.Job] = lab.Control(m.ControlName())
		}
	}
	for _, j := range jobs {
		var seen []string
		for _, e := range lab.Experiments {
			if slices.Contains(e.Controls(lab), first[j]) {
				seen = append(seen, fmt.Sprintf("%02d %s", e.Number, e.Name))
			}
		}
		if len(seen) == 0 {
			seen = []string{"none (they survive, unseen)"}
		}
		fmt.Fprintf(env.Stderr, "  %s (%d): %s\n", j, count[j], strings.Join(seen, ", "))
	}
	fmt.Fprintf(env.Stderr, "%d left out:\n", len(skipped))
	for _, s := range skipped {
		fmt.Fprintf(env.Stderr, "  %s\n", s)
	}
	return nil
}
