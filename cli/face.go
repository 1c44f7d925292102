package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/compose"
	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/runtime/runner"
	"github.com/labgen/labgen/schemas"
)

// face is one way a rendered lab runs, as the commands see it: Docker
// Compose, the native stack (local processes), or a Kubernetes cluster.
// chooseFace picks one from the flags and the lab directory; up, down and
// run call it and branch no further on it. A new face is a type here and
// a case in chooseFace.
type face interface {
	// Name is what a record calls the face (record.Stack.Face).
	Name() string
	// Up brings the lab up and waits until it is healthy.
	Up(ctx context.Context, env *Env, o upOptions) error
	// Down takes the lab down; volumes removes its data too.
	Down(ctx context.Context, env *Env, volumes bool) error
	// Status shows the lab's services as the face sees them; sample is
	// how long to sample CPU use over (the native stack only).
	Status(ctx context.Context, env *Env, sample time.Duration) error
	// ForRun brings the lab up for a run (unless rs.noUp) and says what
	// the run acts through.
	ForRun(ctx context.Context, env *Env, rs runSetup) (*runFace, error)
	// Rendered is how the face's services reach each other (render.Face:
	// the addresses and warehouse in its job SQL) and the directory of
	// the files rendered for it, which the engine check plans.
	Rendered(rl *labdir.Lab) (render.Face, string, error)
}

// upOptions are up's flags that some faces take.
type upOptions struct {
	build   bool
	timeout time.Duration
	dryRun  bool
}

// runSetup is what a face needs to prepare a run.
type runSetup struct {
	lab  *labdir.Lab
	noUp bool
	// submit: the command submits the streaming jobs where the face lets
	// it (run does; smoke and batch do not).
	submit bool
	check  func(context.Context) error // nil: no engine check
	// controls, experiments, resume, ep and info: the run's flags and
	// progress (Kubernetes forwards what the experiments read).
	controls    bool
	experiments []string
	resume      string
	ep          *endpointFlags
	info        func(string)
}

// runFace is a face ready for a run.
type runFace struct {
	// services stop and start a service for compose steps; servicesErr
	// says why there are none.
	services    runner.Services
	servicesErr error
	stack       *record.Stack
	// submit: labgen submits the streaming jobs (no operator does).
	submit bool
	// exits and versions feed the record's head (nil: none).
	exits    func(time.Time) []string
	versions []record.Version
	jvms     []record.JVM
	// close ends what the face opened for the run (port-forwards).
	close func()
}

// guess is how chooseFace picks a face no flag names.
type guess int

const (
	// composeUnlessFlagged: compose (up: starting a stack is the user's
	// choice of face).
	composeUnlessFlagged guess = iota
	// nativeIfRunning: the native stack if one runs for the directory
	// (run, smoke, batch: act on what runs).
	nativeIfRunning
	// nativeIfRan: the native stack if one runs or ran there (its state
	// is there), or when compose cannot run here (down: stop what was
	// started).
	nativeIfRan
)

// chooseFace is the face the flags name, else the one g guesses, else
// compose.
func chooseFace(dir string, nativeFlag, kubernetes bool, kubectl string, g guess) face {
	switch {
	case kubernetes:
		return kubeFace{dir: dir, kubectl: kubectl}
	case nativeFlag:
		return nativeFace{dir: dir}
	}
	lay, err := native.NewLayout(dir)
	if err != nil {
		return composeFace{dir: dir}
	}
	switch g {
	case nativeIfRunning:
		if labdir.NativeRuns(dir) {
			return nativeFace{dir: dir}
		}
	case nativeIfRan:
		if lay.Running() || exists(lay.State) || !hasCompose(dir) {
			return nativeFace{dir: dir}
		}
	}
	return composeFace{dir: dir}
}

// composeFace is the lab's compose.yaml under Docker Compose.
type composeFace struct{ dir string }

func (f composeFace) Name() string { return "compose" }

func (f composeFace) Up(ctx context.Context, env *Env, o upOptions) error {
	c, err := openCompose(f.dir)
	if err != nil {
		return err
	}
	return composeUp(ctx, env, c, compose.UpOptions{Build: o.build, Timeout: o.timeout})
}

func (f composeFace) Down(ctx context.Context, env *Env, volumes bool) error {
	c, err := openCompose(f.dir)
	if err != nil {
		return err
	}
	out, err := c.Down(ctx, volumes)
	if s := strings.TrimSpace(out); s != "" && err == nil {
		fmt.Fprintln(env.Stderr, s)
	}
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	what := "The lab is down; its volumes are kept."
	if volumes {
		what = "The lab is down and its volumes are removed."
	}
	fmt.Fprintln(env.Stdout, what)
	return nil
}

func (f composeFace) ForRun(ctx context.Context, env *Env, rs runSetup) (*runFace, error) {
	comp, cerr := compose.New(f.dir)
	rf := &runFace{servicesErr: cerr, stack: &record.Stack{Face: f.Name()}, submit: true, versions: faceVersions(f.dir, nil)}
	if rs.noUp && rs.submit && exists(filepath.Join(f.dir, "kubernetes", "kustomization.yaml")) && !composeRuns(ctx, comp) {
		return nil, usagef("%s has a Kubernetes base and no compose or native stack runs for it: run it with labgen run %s --kubernetes --no-up (the Flink operator runs its streaming jobs; without --kubernetes labgen would submit them a second time through the SQL gateway)", f.dir, f.dir)
	}
	if !rs.noUp {
		if cerr != nil {
			return nil, &exitError{code: ExitRunFailed, msg: cerr.Error() + " (--native runs the lab without Docker; --no-up runs against services that are already up)"}
		}
		if rs.check != nil {
			// The job-submitter submits as it starts: start everything
			// else, let the engines check, then start the rest.
			if err := composeUp(ctx, env, comp, compose.UpOptions{Except: schemas.Submitters()}); err != nil {
				return nil, err
			}
			if err := rs.check(ctx); err != nil {
				return nil, err
			}
		}
		if err := composeUp(ctx, env, comp, compose.UpOptions{}); err != nil {
			return nil, err
		}
	}
	if comp != nil {
		rf.services = comp
	}
	return rf, nil
}

// nativeFace is the native stack: the lab's services as local processes
// under labgen's supervisor.
type nativeFace struct{ dir string }

func (f nativeFace) Name() string { return "native" }

func (f nativeFace) Up(ctx context.Context, env *Env, o upOptions) error {
	if err := labdir.Check(f.dir); err != nil {
		return err
	}
	return nativeUp(ctx, env, f.dir, o.timeout, nil)
}

func (f nativeFace) Down(ctx context.Context, env *Env, volumes bool) error {
	if err := labdir.Check(f.dir); err != nil {
		return err
	}
	lay, err := native.NewLayout(f.dir)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	msg, err := native.Down(ctx, lay, volumes)
	if err != nil {
		return &exitError{code: ExitRunFailed, msg: err.Error()}
	}
	fmt.Fprintln(env.Stdout, msg)
	return nil
}

// ForRun brings the stack up unless it runs; the engine check runs once
// the gateway is healthy, before up submits the jobs; the supervisor
// stops and starts services for compose steps.
func (f nativeFace) ForRun(ctx context.Context, env *Env, rs runSetup) (*runFace, error) {
	rf := &runFace{submit: true}
	if !rs.noUp {
		if err := nativeUp(ctx, env, f.dir, 15*time.Minute, rs.check); err != nil {
			return nil, err
		}
	}
	rf.services, rf.servicesErr, rf.stack = nativeServices(f.dir)
	rf.exits = stackExits(f.dir, true)
	st := nativeStatus(f.dir)
	rf.versions = faceVersions(f.dir, st)
	rf.jvms = nativeJVMs(st)
	return rf, nil
}

func (f composeFace) Rendered(rl *labdir.Lab) (render.Face, string, error) {
	return render.ComposeFace, rl.Dir, nil
}

// Rendered: the native face's files are rendered again under
// .native/face with its local addresses and warehouse.
func (f nativeFace) Rendered(rl *labdir.Lab) (render.Face, string, error) {
	lay, err := native.NewLayout(f.dir)
	if err != nil {
		return render.Face{}, "", err
	}
	return native.FaceOf(rl, lay), filepath.Join(rl.Dir, labdir.FaceDir), nil
}

// Rendered: the Kubernetes base runs compose's job SQL, whose service
// names its Services keep.
func (f kubeFace) Rendered(rl *labdir.Lab) (render.Face, string, error) {
	return render.ComposeFace, rl.Dir, nil
}

// kubeFace is the lab's Kubernetes base on the cluster of kubectl's
// current context.
type kubeFace struct{ dir, kubectl string }

func (f kubeFace) Name() string { return "kubernetes" }

func (f kubeFace) Up(ctx context.Context, env *Env, o upOptions) error {
	return kubeUp(ctx, env, f.dir, kubeOptions{kubectl: f.kubectl, dryRun: o.dryRun}, o.timeout)
}

func (f kubeFace) Down(ctx context.Context, env *Env, volumes bool) error {
	return kubeDown(ctx, env, f.dir, kubeOptions{kubectl: f.kubectl}, volumes)
}

// ForRun applies the base unless rs.noUp; the operator runs the streaming
// jobs, so the run submits none; compose steps act on its pods; labgen's
// port-forwards reach the services until the run ends.
func (f kubeFace) ForRun(ctx context.Context, env *Env, rs runSetup) (*runFace, error) {
	base, err := kubeBase(f.dir)
	if err != nil {
		return nil, err
	}
	if rs.controls {
		// Undoing a control submits through the SQL gateway every
		// streaming job not found running on the one Flink cluster a
		// run reads.
		return nil, usagef("--controls does not go with --kubernetes: undoing a control submits the streaming jobs again through the SQL gateway, and on Kubernetes the Flink operator runs them, each in a cluster of its own")
	}
	k := kube.Kubectl{Bin: f.kubectl}
	if !rs.noUp {
		if err := kubeUp(ctx, env, f.dir, kubeOptions{kubectl: f.kubectl}, 20*time.Minute); err != nil {
			return nil, err
		}
	}
	exps := kubeExperiments(rs.lab.Lab, rs.experiments)
	if rs.resume != "" {
		exps = rs.lab.Lab.Experiments
	}
	forwards, err := kubeForwards(ctx, env, base, k, rs.lab.Lab, exps, rs.ep, rs.info)
	if err != nil {
		return nil, err
	}
	return &runFace{services: base.Services(k), stack: &record.Stack{Face: f.Name()}, versions: faceVersions(f.dir, nil), close: forwards.Close}, nil
}
