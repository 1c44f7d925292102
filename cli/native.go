package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/runtime/runner"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "native-supervise",
		hidden:  true,
		args:    "OUT",
		summary: "run a lab's native stack in the foreground (labgen up --native starts it in the background)",
		help: `
Starts the native stack of the rendered lab directory OUT as supervised
local processes and keeps them until it is stopped (SIGINT, SIGTERM, or
labgen down OUT). labgen up OUT --native runs this in the background and
waits for every service to be healthy; run it yourself to watch the
supervisor's log in a terminal.`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("native-supervise takes one rendered lab directory")
				}
				lab, err := labdir.Load(args[0])
				if err != nil {
					return err
				}
				self, err := os.Executable()
				if err != nil {
					return err
				}
				plan, err := native.Prepare(ctx, lab, native.Labgen{Path: self, Version: Version}, func(msg string) { fmt.Fprintln(env.Stderr, msg) })
				if err != nil {
					return err
				}
				sup, err := native.NewSupervisor(plan.Layout, plan.Services)
				if err != nil {
					return err
				}
				// A reload plans from the lab as it is rendered then.
				sup.Replan(func(ctx context.Context) ([]native.Service, error) {
					lab, err := labdir.Load(args[0])
					if err != nil {
						return nil, err
					}
					plan, err := native.Prepare(ctx, lab, native.Labgen{Path: self, Version: Version}, func(msg string) { fmt.Fprintln(env.Stderr, msg) })
					if err != nil {
						return nil, err
					}
					return plan.Services, nil
				})
				return sup.Run(ctx)
			}
		},
	})
}

// startDown starts again, on a running native stack, every service that
// is not up: stopped on request, exited (and not yet healed by the
// supervisor) or failed; as compose up starts a stack's stopped containers.
// A paused one is unpaused, else up would wait for it until its timeout.
func startDown(ctx context.Context, lay native.Layout, say func(string, ...any)) error {
	st, err := lay.ReadStatus()
	if err != nil {
		return err
	}
	var c *native.Client
	for _, s := range st.Services {
		action, doing := "start", "starting"
		switch s.State {
		case native.StateStopped, native.StateExited, native.StateFailed:
		case native.StatePaused:
			action, doing = "unpause", "unpausing"
		default:
			continue
		}
		if c == nil {
			if c, err = native.Connect(lay); err != nil {
				return err
			}
		}
		say("  %-20s was %s; %s it ...", s.Name, s.State, doing)
		out, err := c.Service(ctx, action, s.Name)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		say("  %-20s %s", s.Name, out)
	}
	return nil
}

// reloadNative asks a running stack's supervisor to restart the services
// whose inputs a render changed since they started (a variant's lab.json,
// a Flink setting, the TaskManager's memory) and says which and why. When
// the lab now has other services, it takes the stack down (its state is
// kept) and tells the caller to bring it up fresh.
func reloadNative(ctx context.Context, lay native.Layout, dir string, say func(string, ...any)) (fresh bool, err error) {
	c, err := native.Connect(lay)
	if err != nil {
		return false, err
	}
	rl, err := c.Reload(ctx)
	if err != nil {
		return false, fmt.Errorf("planning the running stack again: %w\n(labgen down %s, then up, starts every service with what is rendered now)", err, dir)
	}
	if len(rl.Added) > 0 || len(rl.Removed) > 0 {
		var what []string
		if len(rl.Added) > 0 {
			what = append(what, "adds "+strings.Join(rl.Added, ", "))
		}
		if len(rl.Removed) > 0 {
			what = append(what, "removes "+strings.Join(rl.Removed, ", "))
		}
		say("The lab as rendered now %s: taking the running stack down (labgen down %s; its data is kept) to bring it up with the new set of services ...", strings.Join(what, " and "), dir)
		if _, err := native.Down(ctx, lay, false); err != nil {
			return false, err
		}
		return true, nil
	}
	var failed []string
	for _, r := range rl.Restarted {
		switch {
		case r.Error != "":
			say("  %-20s restart failed: its inputs changed since it started (%s): %s", r.Name, r.Changed, r.Error)
			failed = append(failed, r.Name)
		case r.Result == "":
			say("  %-20s not running; it will start with its changed inputs (%s)", r.Name, r.Changed)
		default:
			say("  %-20s restarted: its inputs changed since it started (%s); %s", r.Name, r.Changed, r.Result)
		}
	}
	if len(rl.Restarted) == 0 {
		say("  no service's inputs changed since it started; none restarted")
	}
	if len(failed) > 0 {
		return false, fmt.Errorf("restarting %s with the lab as rendered now failed (see above)", strings.Join(failed, ", "))
	}
	return false, nil
}

// nativeUp brings a lab's native stack up: what the engines need is
// resolved in the foreground (downloads show progress), the supervisor is
// started in the background, and each service's state is printed until
// all are healthy; then the streaming jobs are made to run.
//
// beforeJobs, when set, runs once the services are healthy and before any
// job is submitted (labgen run's engine check); its error stops the up.
func nativeUp(ctx context.Context, env *Env, dir string, timeout time.Duration, beforeJobs func(context.Context) error) error {
	lab, err := labdir.Load(dir)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	lay, err := native.NewLayout(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, format+"\n", a...) }
	running := lay.Running()
	if running {
		say("The native stack of %s is already running.", dir)
		// A render since the stack started may have changed the jobs.
		if _, _, err := native.WriteFace(lab); err != nil {
			return err
		}
		fresh, err := reloadNative(ctx, lay, dir, say)
		if err != nil {
			return &exitError{code: ExitRunFailed, msg: err.Error()}
		}
		if fresh {
			running = false
		} else if err := startDown(ctx, lay, say); err != nil {
			return &exitError{code: ExitRunFailed, msg: err.Error()}
		}
	}
	if !running {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		say("Preparing the native stack of %s (no Docker: each service runs as a local process) ...", dir)
		plan, err := native.Prepare(ctx, lab, native.Labgen{Path: self, Version: Version}, func(msg string) { say("  %s", msg) })
		if err != nil {
			return &exitError{code: ExitRunFailed, msg: err.Error()}
		}
		for _, name := range sortedKeys(plan.Skipped) {
			say("  %-20s not run natively: %s", name, plan.Skipped[name])
		}
		if _, err := native.Launch(lay, []string{self, "native-supervise", lay.Lab}); err != nil {
			return &exitError{code: ExitRunFailed, msg: err.Error()}
		}
		say("Starting %d services (logs in %s) ...", len(plan.Services), lay.State+"/logs")
	}
	st, err := native.WaitUp(ctx, lay, timeout, func(s native.ServiceStatus) {
		if running && s.State == native.StateHealthy {
			return // nothing new to say of it
		}
		line := fmt.Sprintf("  %-20s %s", s.Name, s.State)
		if s.State == native.StateHealthy && s.Healthy != "" {
			line += " after " + s.Healthy
		}
		if s.Detail != "" && s.State != native.StateHealthy {
			line += ": " + s.Detail
		}
		say("%s", line)
	})
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error() + "\n(labgen down " + dir + " stops what started)"}
	}
	if running {
		say("All %d services are healthy.", len(st.Services))
	} else {
		say("All %d services are healthy after %s.", len(st.Services), time.Since(start).Round(time.Second))
	}
	if beforeJobs != nil {
		// Lake tables are the stack's, not a job: with them in place the
		// check plans the jobs' Fluss statements too.
		if lab.Lab.Stack.Flink != nil {
			created, err := runner.EnsureLakeTables(ctx, runner.Options{Lab: lab, Endpoints: lab.Endpoints(nil), Version: Version})
			if err != nil {
				return &exitError{code: ExitRunFailed, msg: "creating the lake tables: " + err.Error()}
			}
			if len(created) > 0 {
				say("Created the lake tables %s.", strings.Join(created, ", "))
			}
		}
		if err := beforeJobs(ctx); err != nil {
			return err
		}
	}
	if err := nativeJobs(ctx, env, lab); err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	return nil
}

// nativeJobs does what compose's one-shot job services do: the Fluss
// tiering job and every streaming job of the lab run, each once.
func nativeJobs(ctx context.Context, env *Env, lab *labdir.Lab) error {
	if lab.Lab.Stack.Flink == nil {
		return nil
	}
	eps := lab.Endpoints(nil)
	if err := native.EnsureTiering(ctx, lab, eps.Flink, func(msg string) { fmt.Fprintf(env.Stderr, "  %s\n", msg) }); err != nil {
		return err
	}
	jobs, err := runner.EnsureJobs(ctx, runner.Options{Lab: lab, Endpoints: eps, Progress: newProgress(env), Version: Version})
	if err != nil {
		return err
	}
	var failed []string
	for _, j := range jobs {
		if j.Error != "" && j.How != "unavailable" {
			failed = append(failed, fmt.Sprintf("%s: %s", j.Name, j.Error))
		}
		if j.How == "resubmitted" {
			fmt.Fprintf(env.Stderr, "  job %s resubmitted: its script changed since %s was submitted\n", j.Name, j.Replaced)
		}
	}
	if len(failed) > 0 {
		return errors.New("streaming jobs did not start:\n" + strings.Join(failed, "\n"))
	}
	for _, j := range jobs {
		if j.How == "submitted" || j.How == "resubmitted" {
			firstRows(ctx, env, lab, eps, j.Name, time.Now())
		}
	}
	return nil
}

// firstRows waits until a just-submitted streaming job's output reaches
// ClickHouse and says how long that took after the submission: the
// pipeline's start-up latency, and a sign that data flows end to end.
func firstRows(ctx context.Context, env *Env, lab *labdir.Lab, eps labdir.Endpoints, job string, submitted time.Time) {
	j := lab.Lab.Job(job)
	if j == nil || eps.DB[query.ClickHouse].Addr == "" {
		return
	}
	t := lab.Lab.Table(j.Writes)
	if t == nil || t.Store(schemas.StoreClickHouse) == nil || lab.Lab.Stack.ClickHouse == nil {
		return
	}
	table := lab.Lab.Stack.ClickHouse.Database + "." + t.Store(schemas.StoreClickHouse).Name
	eng, err := query.Open(eps.DB[query.ClickHouse])
	if err != nil {
		return
	}
	defer eng.Close()
	count := func() (string, bool) {
		res, err := eng.Query(ctx, "SELECT count() FROM "+table, query.Limits{MaxRows: 1, Timeout: 10 * time.Second})
		if err != nil || len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			return "", false
		}
		return fmt.Sprint(res.Rows[0][0]), true
	}
	// A restarted stack's table already holds rows: wait for new ones.
	before, _ := count()
	deadline := submitted.Add(3 * time.Minute)
	fmt.Fprintf(env.Stderr, "  waiting for the first rows of job %s in ClickHouse (%s) ...\n", job, table)
	err = proc.Poll(ctx, deadline, proc.Pace{Interval: 500 * time.Millisecond}, nil, func(context.Context) error {
		if n, ok := count(); ok && n != "0" && n != before {
			return nil
		}
		return errNoNewRows
	})
	if err == nil {
		fmt.Fprintf(env.Stderr, "  job %s: its first rows reached ClickHouse %s after it was submitted\n", job, time.Since(submitted).Round(100*time.Millisecond))
		return
	}
	if ctx.Err() != nil {
		return
	}
	fmt.Fprintf(env.Stderr, "  %s's rows have not reached ClickHouse %s after the job was submitted; labgen smoke %s tells where they stop\n", job, time.Since(submitted).Round(time.Second), lab.Dir)
}

var errNoNewRows = errors.New("no new rows yet")

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nativeServices are the native supervisor as compose steps use it, and
// what the record says of the stack.
func nativeServices(dir string) (runner.Services, error, *record.Stack) {
	stack := &record.Stack{Face: "native"}
	lay, err := native.NewLayout(dir)
	if err != nil {
		return nil, err, stack
	}
	if st, err := lay.ReadStatus(); err == nil {
		for _, s := range st.Services {
			if s.StandIn != "" {
				stack.StandIns = append(stack.StandIns, s.Name+": "+s.StandIn)
			}
		}
	}
	c, err := native.Connect(lay)
	if err != nil {
		return nil, err, stack
	}
	return c, nil, stack
}

// stackExits reads, on a native stack, which services exited on their own
// since a run began and whether the supervisor started them again.
func stackExits(dir string, isNative bool) func(time.Time) []string {
	if !isNative {
		return nil
	}
	lay, err := native.NewLayout(dir)
	if err != nil {
		return nil
	}
	return func(since time.Time) []string {
		st, err := lay.ReadStatus()
		if err != nil {
			return nil
		}
		var out []string
		for _, s := range st.Services {
			at, detail, ok := strings.Cut(s.LastExit, ": ")
			t, err := time.Parse(time.RFC3339, at)
			if !ok || err != nil || t.Before(since.Truncate(time.Second)) {
				continue
			}
			what := fmt.Sprintf("%s at %s (%s); ", s.Name, at, detail)
			if s.State == native.StateHealthy {
				what += fmt.Sprintf("the supervisor started it again (restart %d of this stack)", s.Restarts)
			} else {
				what += "now " + s.State
			}
			out = append(out, what)
		}
		return out
	}
}

// nativeStatus is the native stack's status of its services, nil
// when there is none to read.
func nativeStatus(dir string) *native.Status {
	lay, err := native.NewLayout(dir)
	if err != nil {
		return nil
	}
	st, err := lay.ReadStatus()
	if err != nil {
		return nil
	}
	return st
}

// nativeJVMs are the native stack's Java processes as /proc shows them:
// each one's Java release and -Xmx. A service that is not running, or
// not a JVM, has no line.
func nativeJVMs(st *native.Status) []record.JVM {
	if st == nil {
		return nil
	}
	var out []record.JVM
	for _, s := range st.Services {
		if s.PID == 0 {
			continue
		}
		jp, err := native.ReadJavaProcess(s.PID)
		if err != nil {
			continue
		}
		out = append(out, record.JVM{Service: s.Name, Version: jp.Release, Heap: jp.HeapText(),
			Source: "the process's JDK release file and its -Xmx, from /proc"})
	}
	return out
}

// faceVersions are the versions the face knows ran: each native service's
// release (a JVM's from the jar on its class path, labgen's own services'
// from the binary they were started from; st is nil on the other faces),
// and the connector jars labgen.lock pins into Flink (checked against
// their sha256 by the native stack and by the image's build).
func faceVersions(dir string, st *native.Status) []record.Version {
	var out []record.Version
	if st != nil {
		for _, s := range st.Services {
			switch {
			case strings.HasPrefix(s.Version, native.LabgenVersionPrefix):
				out = append(out, record.Version{Name: s.Name, Version: s.Version, Source: "the labgen binary the native stack started it from"})
			case s.Version != "":
				out = append(out, record.Version{Name: s.Name, Version: s.Version, Source: "the jar on its class path"})
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "labgen.lock")); err == nil {
		jars, _ := native.ReadLockJars(b)
		for _, j := range jars {
			out = append(out, record.Version{Name: j.Artifact, Version: j.Version,
				Source: "labgen.lock (sha256-checked), Flink's " + filepath.Dir(j.Path) + "/"})
		}
	}
	return out
}
