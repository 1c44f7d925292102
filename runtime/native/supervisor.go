package native

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/labgen/labgen/internal/atomicfile"
	"github.com/labgen/labgen/internal/proc"
)

// States of a service, as Status shows them.
const (
	StateWaiting  = "waiting" // for the services it needs
	StateSetup    = "setting up"
	StateStarting = "starting" // running, not healthy yet
	StateHealthy  = "healthy"
	StatePaused   = "paused"  // SIGSTOP on request: alive but frozen
	StateStopped  = "stopped" // on request (a compose step, labgen down)
	StateExited   = "exited"  // on its own: a failure
	StateFailed   = "failed"  // could not be set up, started or made ready
)

// stopGrace is how long a stopped service has between SIGTERM and
// SIGKILL, as docker stop's default.
const stopGrace = 10 * time.Second

// ServiceStatus is one service as the supervisor sees it.
type ServiceStatus struct {
	Name   string    `json:"name"`
	State  string    `json:"state"`
	Detail string    `json:"detail,omitempty"`
	PID    int       `json:"pid,omitempty"`
	Since  time.Time `json:"since"`
	// Healthy is how long the last start took to become healthy.
	Healthy string `json:"healthy_after,omitempty"`
	Log     string `json:"log"`
	StandIn string `json:"stand_in,omitempty"`
	Memory  string `json:"memory,omitempty"`
	Version string `json:"version,omitempty"`
	// Restarts counts the times the supervisor started the service again
	// after it exited on its own; LastExit says when and how it last did.
	Restarts int    `json:"restarts,omitempty"`
	LastExit string `json:"last_exit,omitempty"`
	// Fingerprint and Inputs are what the running process was started
	// from (Service.Inputs), set at each start: a reload compares them.
	Fingerprint string            `json:"fingerprint,omitempty"`
	Inputs      map[string]string `json:"inputs,omitempty"`
}

// Status is the supervisor's view of the stack, kept in
// .native/status.json.
type Status struct {
	PID      int             `json:"pid"`
	Started  time.Time       `json:"started"`
	Services []ServiceStatus `json:"services"`
	// Down is set when the supervisor has stopped everything and exited.
	Down bool `json:"down,omitempty"`
	// Error is a failure of the supervisor itself.
	Error string `json:"error,omitempty"`
}

// Service finds a service's status.
func (s *Status) Service(name string) (ServiceStatus, bool) {
	for _, x := range s.Services {
		if x.Name == name {
			return x, true
		}
	}
	return ServiceStatus{}, false
}

// AllHealthy tells whether every service is healthy.
func (s *Status) AllHealthy() bool {
	for _, x := range s.Services {
		if x.State != StateHealthy {
			return false
		}
	}
	return len(s.Services) > 0
}

// Failed lists the services that exited or failed.
func (s *Status) Failed() []ServiceStatus {
	var out []ServiceStatus
	for _, x := range s.Services {
		if x.State == StateExited || x.State == StateFailed {
			out = append(out, x)
		}
	}
	return out
}

func (l Layout) statusPath() string  { return filepath.Join(l.State, "status.json") }
func (l Layout) controlPath() string { return filepath.Join(l.State, "control.json") }
func (l Layout) lockPath() string    { return filepath.Join(l.State, "supervisor.lock") }

// SupervisorLog is where the supervisor's own output goes.
func (l Layout) SupervisorLog() string { return l.Log("supervisor") }

// ReadStatus reads .native/status.json; os.ErrNotExist when no native
// stack was ever started here.
func (l Layout) ReadStatus() (*Status, error) {
	b, err := os.ReadFile(l.statusPath())
	if err != nil {
		return nil, err
	}
	var s Status
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", l.statusPath(), err)
	}
	return &s, nil
}

// Running tells whether a supervisor holds this lab's lock.
func (l Layout) Running() bool {
	f, err := os.Open(l.lockPath())
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// supervised is a service and its process.
type supervised struct {
	Service
	mu      sync.Mutex
	status  ServiceStatus
	proc    *proc.Proc
	stopped bool // a stop was asked for: its exit is no failure
	// paused is when a pause sent the process group SIGSTOP (zero when
	// it runs): a frozen service is a fault asked for, not a failure.
	paused  time.Time
	healthy chan struct{}
	ready   bool // Ready has run
	// heals counts the restarts since the service last stayed healthy
	// for healedAfter: the next restart waits restartDelay(heals).
	heals int
}

// Supervisor owns the processes of one native stack.
type Supervisor struct {
	lay      Layout
	services []*supervised
	byName   map[string]*supervised
	started  time.Time
	mu       sync.Mutex // status file writes
	log      func(format string, a ...any)
	// ctx is Run's: what the supervisor starts on its own ends with it.
	ctx context.Context
	// restartDelay is how long to wait before the n-th restart in a row
	// (from 0) of a service that exited on its own.
	restartDelay func(n int) time.Duration
	// replan plans the stack again from the lab as it is rendered now
	// (a reload); reloading lets one reload run at a time.
	replan    func(ctx context.Context) ([]Service, error)
	reloading sync.Mutex
}

// Replan sets how a reload plans the stack again (native.Prepare on the
// lab directory, in labgen native-supervise).
func (s *Supervisor) Replan(f func(ctx context.Context) ([]Service, error)) { s.replan = f }

// A service that exits on its own after it was healthy is started again,
// as compose's restart: unless-stopped does: after 1 s, doubling up to
// 30 s while it keeps exiting; a service healthy for healedAfter starts
// again from 1 s. A stop asked for (labgen down, a compose step, a
// control) is never undone, a paused service (SIGSTOP) is not restarted,
// even when it exits, and a service that fails while starting stays
// failed, so that labgen up reports it.
const (
	restartFirst, restartMax = time.Second, 30 * time.Second
	healedAfter              = time.Minute
)

// exited tells whether a process has ended.
func exited(p *proc.Proc) bool {
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

func defaultRestartDelay(n int) time.Duration {
	d := restartFirst
	for i := 0; i < n && d < restartMax; i++ {
		d *= 2
	}
	return min(d, restartMax)
}

// NewSupervisor prepares the services of a stack. Names must be unique and
// Needs must name earlier services.
func NewSupervisor(lay Layout, services []Service) (*Supervisor, error) {
	s := &Supervisor{lay: lay, byName: map[string]*supervised{}, started: time.Now(), ctx: context.Background(), restartDelay: defaultRestartDelay}
	s.log = func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s supervisor: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, a...))
	}
	for _, svc := range services {
		if s.byName[svc.Name] != nil {
			return nil, fmt.Errorf("native: service %s twice", svc.Name)
		}
		for _, n := range svc.Needs {
			if s.byName[n] == nil {
				return nil, fmt.Errorf("native: %s needs %s, which is not started before it", svc.Name, n)
			}
		}
		sv := &supervised{Service: svc, healthy: make(chan struct{})}
		sv.status = ServiceStatus{Name: svc.Name, State: StateWaiting, Since: time.Now(), Log: lay.Log(svc.Name), StandIn: svc.StandIn, Memory: svc.Memory, Version: svc.Version}
		s.services = append(s.services, sv)
		s.byName[svc.Name] = sv
	}
	return s, nil
}

// Run starts every service as soon as what it needs is healthy, serves
// control requests, and stops everything (in reverse order) when ctx ends
// or a shutdown is asked for. It holds the lab's supervisor lock.
func (s *Supervisor) Run(ctx context.Context) error {
	for _, d := range []string{s.lay.State, filepath.Join(s.lay.State, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	lock, err := os.OpenFile(s.lay.lockPath(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("a native stack already runs for %s (labgen down %s stops it)", s.lay.Lab, s.lay.Lab)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	token := randomToken()
	if err := writeJSON(s.lay.controlPath(), control{Addr: ln.Addr().String(), Token: token}, 0o600); err != nil {
		return err
	}
	srv := &http.Server{Handler: s.handler(token, cancel), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	s.writeStatus(false)

	var wg sync.WaitGroup
	for _, sv := range s.services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.bringUp(ctx, sv)
		}()
	}
	<-ctx.Done()
	s.log("stopping every service")
	s.stopAll()
	wg.Wait()
	shutdown, cancelShutdown := context.WithTimeout(context.Background(), 2*time.Second)
	srv.Shutdown(shutdown)
	cancelShutdown()
	os.Remove(s.lay.controlPath())
	s.writeStatus(true)
	return nil
}

// bringUp waits for a service's needs, sets it up, starts it and waits for
// it to be healthy, then runs its Ready step once.
func (s *Supervisor) bringUp(ctx context.Context, sv *supervised) {
	for _, n := range sv.Needs {
		select {
		case <-s.byName[n].healthy:
		case <-ctx.Done():
			return
		}
	}
	if sv.Setup != nil {
		marker := filepath.Join(s.lay.Data(sv.Name), ".labgen-setup-done")
		if _, err := os.Stat(marker); err != nil {
			s.set(sv, StateSetup, "")
			if err := os.MkdirAll(s.lay.Data(sv.Name), 0o755); err != nil {
				s.set(sv, StateFailed, err.Error())
				return
			}
			if err := sv.Setup(ctx); err != nil {
				s.set(sv, StateFailed, "setup: "+err.Error())
				return
			}
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				s.set(sv, StateFailed, err.Error())
				return
			}
		}
	}
	s.start(ctx, sv)
}

// start starts the process and waits for its health; a healthy service
// runs Ready once and unblocks the services that need it.
func (s *Supervisor) start(ctx context.Context, sv *supervised) {
	if err := s.spawn(sv); err != nil {
		s.set(sv, StateFailed, err.Error())
		return
	}
	began := time.Now()
	if err := s.waitHealthy(ctx, sv); err != nil {
		if ctx.Err() == nil {
			s.set(sv, StateFailed, err.Error())
		}
		return
	}
	sv.mu.Lock()
	sv.status.Healthy = time.Since(began).Round(100 * time.Millisecond).String()
	needReady := !sv.ready && sv.Ready != nil
	sv.mu.Unlock()
	if needReady {
		if err := sv.Ready(ctx); err != nil {
			s.set(sv, StateFailed, "ready: "+err.Error())
			return
		}
	}
	sv.mu.Lock()
	sv.ready = true
	sv.mu.Unlock()
	s.set(sv, StateHealthy, "")
	s.log("%s is healthy after %s", sv.Name, time.Since(began).Round(100*time.Millisecond))
	sv.mu.Lock()
	select {
	case <-sv.healthy:
	default:
		close(sv.healthy)
	}
	sv.mu.Unlock()
}

func (s *Supervisor) spawn(sv *supervised) error {
	if len(sv.Argv) == 0 {
		return errors.New("no command")
	}
	for p, b := range sv.Files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	dir := sv.Dir
	if dir == "" {
		dir = s.lay.Data(sv.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(sv.Argv[0], sv.Argv[1:]...)
	cmd.Dir = dir
	// Every service runs in UTC, as the images do: in the machine's zone,
	// MariaDB's NOW(), chdb's DateTime64 parsing and Flink's LOCALTIMESTAMP
	// would read the producer's UTC timestamps shifted.
	cmd.Env = append(append(os.Environ(), "TZ=UTC"), sv.Env...)
	if sv.Credential != nil {
		// StartProc keeps the credential and sets the parent-death signal
		// after the change of user.
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: sv.Credential}
	}
	appendLine(s.lay.Log(sv.Name), fmt.Sprintf("\n==== %s labgen starts %s: %s\n", time.Now().UTC().Format(time.RFC3339), sv.Name, strings.Join(sv.Argv, " ")))
	p, err := proc.StartProc(sv.Name, cmd, s.lay.Log(sv.Name), "")
	if err != nil {
		return err
	}
	in := sv.Inputs()
	sv.mu.Lock()
	sv.proc, sv.stopped = p, false
	sv.status.PID = p.Pid()
	sv.status.Inputs, sv.status.Fingerprint = in, fingerprint(in)
	sv.mu.Unlock()
	s.set(sv, StateStarting, "")
	go func() {
		<-p.Exited()
		sv.mu.Lock()
		asked := sv.stopped || sv.proc != p
		wasHealthy := sv.status.State == StateHealthy
		wasPaused := !asked && !sv.paused.IsZero()
		if wasPaused {
			sv.paused = time.Time{}
		}
		sv.mu.Unlock()
		if !asked {
			detail := "exited"
			if err := p.Err(); err != nil {
				detail = err.Error()
			}
			if wasPaused {
				// Its state is paused, not healthy, so it is not healed:
				// the pause is a fault asked for, which a new process
				// would end behind the asker's back.
				detail += " while paused"
			}
			sv.mu.Lock()
			sv.status.LastExit = time.Now().UTC().Format(time.RFC3339) + ": " + detail
			sv.mu.Unlock()
			s.set(sv, StateExited, detail+"; last lines of "+s.lay.Log(sv.Name)+":\n"+proc.Tail(readTail(s.lay.Log(sv.Name)), 15))
			s.log("%s exited on its own: %s", sv.Name, detail)
			if wasHealthy {
				go s.heal(sv, p)
			}
		}
	}()
	return nil
}

// startAgain starts a service that ran before (a request's start, or a
// restart after an exit) and waits for it to be healthy, then marks it
// so. The process is nil when it could not be started; err says why it
// could not, or why it is not healthy.
func (s *Supervisor) startAgain(ctx context.Context, sv *supervised) (*proc.Proc, time.Duration, error) {
	began := time.Now()
	if err := s.spawn(sv); err != nil {
		return nil, 0, err
	}
	sv.mu.Lock()
	p := sv.proc
	sv.mu.Unlock()
	if err := s.waitHealthy(ctx, sv); err != nil {
		return p, 0, err
	}
	took := time.Since(began).Round(100 * time.Millisecond)
	// Status shows the running process's start, not the first one's.
	sv.mu.Lock()
	sv.status.Healthy = took.String()
	sv.mu.Unlock()
	s.set(sv, StateHealthy, "")
	return p, took, nil
}

// heal starts a service again that exited on its own (see restartDelay),
// unless a stop or start was asked for meanwhile or the supervisor ends.
func (s *Supervisor) heal(sv *supervised, exited *proc.Proc) {
	sv.mu.Lock()
	delay := s.restartDelay(sv.heals)
	sv.heals++
	sv.mu.Unlock()
	s.log("%s: starting it again in %s", sv.Name, delay)
	select {
	case <-s.ctx.Done():
		return
	case <-time.After(delay):
	}
	sv.mu.Lock()
	current := sv.proc == exited && !sv.stopped
	sv.mu.Unlock()
	if !current {
		return // stopped, or started by a request, meanwhile
	}
	sv.mu.Lock()
	sv.status.Restarts++
	n := sv.status.Restarts
	sv.mu.Unlock()
	p, took, err := s.startAgain(s.ctx, sv)
	if p == nil {
		s.set(sv, StateFailed, "restart: "+err.Error())
		return
	}
	if err != nil {
		if s.ctx.Err() != nil {
			return
		}
		select {
		case <-p.Exited():
			// It exited again while starting: try again, further apart.
			sv.mu.Lock()
			again := sv.proc == p && !sv.stopped
			sv.mu.Unlock()
			s.set(sv, StateExited, "restart: "+err.Error())
			if again {
				go s.heal(sv, p)
			}
		default:
			// It runs but is not healthy: as compose, no restart for that.
			s.set(sv, StateFailed, "restarted, but "+err.Error())
		}
		return
	}
	s.log("%s is healthy again after %s (restart %d)", sv.Name, took, n)
	go func() {
		// Healthy long enough: the next exit restarts it after restartFirst.
		select {
		case <-p.Exited():
		case <-s.ctx.Done():
		case <-time.After(healedAfter):
			sv.mu.Lock()
			if sv.proc == p {
				sv.heals = 0
			}
			sv.mu.Unlock()
		}
	}()
}

func (s *Supervisor) waitHealthy(ctx context.Context, sv *supervised) error {
	limit := sv.Health.Start
	if limit <= 0 {
		limit = 2 * time.Minute
	}
	sv.mu.Lock()
	p := sv.proc
	sv.mu.Unlock()
	err := proc.Poll(ctx, time.Now().Add(limit), proc.Pace{Timeout: limit, Probe: 5 * time.Second, Interval: 500 * time.Millisecond}, p.Exited(), sv.Health.check)
	var late *proc.Late
	switch {
	case errors.Is(err, proc.ErrGone):
		return fmt.Errorf("exited while starting (%v); last lines of %s:\n%s", p.Err(), s.lay.Log(sv.Name), proc.Tail(readTail(s.lay.Log(sv.Name)), 15))
	case errors.As(err, &late):
		return fmt.Errorf("not healthy after %s: %v", limit, late.Last)
	}
	return err
}

// stop stops a service's process: SIGTERM, then SIGKILL after stopGrace.
// A paused one gets SIGCONT first, as a frozen process would hold SIGTERM
// until the SIGKILL; resumed says so.
func (s *Supervisor) stop(sv *supervised, state, why string) (resumed bool) {
	sv.mu.Lock()
	p := sv.proc
	sv.stopped = true
	if !sv.paused.IsZero() && p != nil {
		sv.paused = time.Time{}
		if err := p.SignalGroup(syscall.SIGCONT); err != nil {
			s.log("%s: SIGCONT before its stop: %v", sv.Name, err)
		}
		resumed = true
	}
	sv.mu.Unlock()
	if p != nil {
		if err := p.Terminate(stopGrace); err != nil {
			s.log("%s: %v", sv.Name, err)
		}
	}
	if p != nil || state != StateStopped {
		s.set(sv, state, why)
	}
	return resumed
}

// action is a compose step's stop, start, restart, pause or unpause of
// one service.
func (s *Supervisor) action(ctx context.Context, name, what string) (string, error) {
	sv := s.byName[name]
	if sv == nil {
		var names []string
		for _, x := range s.services {
			names = append(names, x.Name)
		}
		return "", fmt.Errorf("no native service %q; the stack runs %s", name, strings.Join(names, ", "))
	}
	switch what {
	case "stop":
		sv.mu.Lock()
		pid := 0
		if sv.proc != nil {
			pid = sv.proc.Pid()
		}
		sv.mu.Unlock()
		began := time.Now()
		resumed := s.stop(sv, StateStopped, "stopped on request")
		if pid == 0 {
			return name + " was not running", nil
		}
		// What a record shows: which process got which signal, and how
		// it ended (docker stop's grace, as compose).
		how := fmt.Sprintf("exited %s after SIGTERM", time.Since(began).Round(100*time.Millisecond))
		if time.Since(began) >= stopGrace {
			how = fmt.Sprintf("still there after %s, killed with SIGKILL", stopGrace)
		}
		signals := "SIGTERM"
		if resumed {
			signals = "SIGCONT (it was paused), then SIGTERM"
		}
		return fmt.Sprintf("%s to %s's process group (pid %d): %s", signals, name, pid, how), nil
	case "start", "restart":
		if what == "restart" {
			s.stop(sv, StateStopped, "restarting")
		}
		sv.mu.Lock()
		running := sv.proc != nil && !sv.stopped && !exited(sv.proc)
		paused := !sv.paused.IsZero()
		sv.mu.Unlock()
		if running && paused {
			return name + " already runs, paused (unpause resumes it)", nil
		}
		if running {
			return name + " already runs", nil
		}
		p, took, err := s.startAgain(ctx, sv)
		if p == nil {
			s.set(sv, StateFailed, err.Error())
			return "", err
		}
		if err != nil {
			s.set(sv, StateFailed, err.Error())
			return "", fmt.Errorf("%s started but is not healthy: %w", name, err)
		}
		return fmt.Sprintf("%sed %s; healthy after %s", what, name, took), nil
	case "pause":
		return s.pause(sv)
	case "unpause":
		return s.unpause(sv)
	}
	return "", fmt.Errorf("unknown action %q (want stop, start, restart, pause or unpause)", what)
}

// pause freezes a healthy service: SIGSTOP to its process group, as
// docker compose pause freezes a container's processes. The process
// stays, so what reads from it stalls rather than fails, and the
// supervisor does not restart it (only a healthy service is healed).
// unpause sends SIGCONT, as a stop, a reload's restart and labgen down do
// before their SIGTERM.
func (s *Supervisor) pause(sv *supervised) (string, error) {
	sv.mu.Lock()
	p, state, at := sv.proc, sv.status.State, sv.paused
	switch {
	case !at.IsZero():
		sv.mu.Unlock()
		return fmt.Sprintf("%s is already paused (since %s, %s ago)", sv.Name, at.UTC().Format(time.RFC3339), time.Since(at).Round(100*time.Millisecond)), nil
	case p == nil || sv.stopped || exited(p) || state == StateStopped || state == StateExited || state == StateFailed:
		sv.mu.Unlock()
		return "", fmt.Errorf("cannot pause %s: it is %s, no process runs (start it first)", sv.Name, state)
	case state != StateHealthy:
		// A frozen process would fail the health probe of its start.
		sv.mu.Unlock()
		return "", fmt.Errorf("cannot pause %s: it is %s, not healthy yet; pause it once it is", sv.Name, state)
	}
	if err := p.SignalGroup(syscall.SIGSTOP); err != nil {
		sv.mu.Unlock()
		return "", fmt.Errorf("SIGSTOP to %s's process group (pid %d): %w", sv.Name, p.Pid(), err)
	}
	now := time.Now()
	sv.paused = now
	sv.status.State, sv.status.Detail, sv.status.Since = StatePaused, "SIGSTOP on request; unpause sends SIGCONT", now
	sv.mu.Unlock()
	s.writeStatus(false)
	s.log("%s paused (SIGSTOP to its process group, pid %d)", sv.Name, p.Pid())
	return fmt.Sprintf("SIGSTOP to %s's process group (pid %d): frozen until unpause", sv.Name, p.Pid()), nil
}

// unpause resumes a paused service (SIGCONT to its process group); it is
// healthy again, as it was when paused. A service that is not paused is
// left alone.
func (s *Supervisor) unpause(sv *supervised) (string, error) {
	sv.mu.Lock()
	p, state, at := sv.proc, sv.status.State, sv.paused
	if at.IsZero() || p == nil {
		sv.mu.Unlock()
		return fmt.Sprintf("%s is not paused (%s): nothing to do", sv.Name, state), nil
	}
	if err := p.SignalGroup(syscall.SIGCONT); err != nil {
		sv.mu.Unlock()
		return "", fmt.Errorf("SIGCONT to %s's process group (pid %d): %w", sv.Name, p.Pid(), err)
	}
	paused := time.Since(at).Round(100 * time.Millisecond)
	sv.paused = time.Time{}
	sv.status.State, sv.status.Detail, sv.status.Since = StateHealthy, "", time.Now()
	sv.mu.Unlock()
	s.writeStatus(false)
	s.log("%s unpaused after %s (SIGCONT to its process group, pid %d)", sv.Name, paused, p.Pid())
	return fmt.Sprintf("SIGCONT to %s's process group (pid %d) after %s paused: it runs again", sv.Name, p.Pid(), paused), nil
}

func (s *Supervisor) set(sv *supervised, state, detail string) {
	sv.mu.Lock()
	sv.status.State, sv.status.Detail, sv.status.Since = state, detail, time.Now()
	if state == StateStopped || state == StateExited || state == StateFailed {
		sv.status.PID = 0
	}
	sv.mu.Unlock()
	if state == StateFailed {
		s.log("%s failed: %s", sv.Name, detail)
	}
	s.writeStatus(false)
}

func (s *Supervisor) writeStatus(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{PID: os.Getpid(), Started: s.started, Down: down}
	for _, sv := range s.services {
		sv.mu.Lock()
		st.Services = append(st.Services, sv.status)
		sv.mu.Unlock()
	}
	if err := writeJSON(s.lay.statusPath(), st, 0o644); err != nil {
		s.log("writing status: %v", err)
	}
}

// control is how clients reach the supervisor: its address and the token
// every request must carry (the file is readable by its owner only).
type control struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

func (s *Supervisor) handler(token string, shutdown func()) http.Handler {
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("POST /services/{name}/{action}", auth(func(w http.ResponseWriter, r *http.Request) {
		out, err := s.action(r.Context(), r.PathValue("name"), r.PathValue("action"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprintln(w, out)
	}))
	mux.HandleFunc("POST /reload", auth(func(w http.ResponseWriter, r *http.Request) {
		rl, err := s.reload(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		json.NewEncoder(w).Encode(rl)
	}))
	mux.HandleFunc("POST /shutdown", auth(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "stopping")
		shutdown()
	}))
	return mux
}

func (p Probe) check(ctx context.Context) error {
	switch {
	case p.TCP != "":
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", p.TCP)
		if err != nil {
			return err
		}
		return c.Close()
	case p.HTTP != "":
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.HTTP, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("GET %s: %s", p.HTTP, resp.Status)
		}
		return nil
	case p.Func != nil:
		return p.Func(ctx)
	}
	return nil
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(path string, v any, mode os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), mode)
}

// appendLine adds a line to a log; a log that cannot be written is no
// reason to fail a start.
func appendLine(path, line string) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
		f.WriteString(line)
		f.Close()
	}
}

// readTail is the end of a log file (at most 64 KiB).
func readTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - 64<<10
	if off < 0 {
		off = 0
	}
	b := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(b, off)
	return string(b[:n])
}

// stopAll stops every service, each once the services that need it have
// stopped (the producer before MySQL, the TaskManager before the
// JobManager), and independent ones at the same time: a JVM takes seconds
// to shut down, and one after the other they add up.
func (s *Supervisor) stopAll() {
	stopped := map[string]chan struct{}{}
	for _, sv := range s.services {
		stopped[sv.Name] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for _, sv := range s.services {
		var dependents []chan struct{}
		for _, other := range s.services {
			for _, n := range other.Needs {
				if n == sv.Name {
					dependents = append(dependents, stopped[other.Name])
				}
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, d := range dependents {
				<-d
			}
			began := time.Now()
			s.stop(sv, StateStopped, "labgen down")
			s.log("%s stopped in %s", sv.Name, time.Since(began).Round(100*time.Millisecond))
			close(stopped[sv.Name])
		}()
	}
	wg.Wait()
}

// Reload is what a reload did: the services it restarted, or, when the
// stack would now run other services, which (and nothing was restarted:
// a stack's services are started in an order of their needs, so a new
// set is a new stack).
type Reload struct {
	Added     []string  `json:"added,omitempty"`
	Removed   []string  `json:"removed,omitempty"`
	Restarted []Restart `json:"restarted,omitempty"`
}

// Restart is one service a reload gave a new definition.
type Restart struct {
	Name string `json:"name"`
	// Changed names the inputs that differ from those it started with.
	Changed string `json:"changed"`
	// Result is the restart's outcome ("" when it was not running: it
	// starts with the new definition when it is started).
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// reload plans the stack again and restarts, in start order, each
// service whose inputs differ from those its process started with, with
// its new definition. A service that does not run gets the new definition
// for its next start.
func (s *Supervisor) reload(ctx context.Context) (*Reload, error) {
	if s.replan == nil {
		return nil, errors.New("this supervisor cannot plan its stack again")
	}
	s.reloading.Lock()
	defer s.reloading.Unlock()
	services, err := s.replan(ctx)
	if err != nil {
		return nil, fmt.Errorf("planning the stack again: %w", err)
	}
	rl := &Reload{}
	planned := map[string]bool{}
	for _, svc := range services {
		planned[svc.Name] = true
		if s.byName[svc.Name] == nil {
			rl.Added = append(rl.Added, svc.Name)
		}
	}
	for _, sv := range s.services {
		if !planned[sv.Name] {
			rl.Removed = append(rl.Removed, sv.Name)
		}
	}
	if len(rl.Added) > 0 || len(rl.Removed) > 0 {
		return rl, nil
	}
	for _, svc := range services {
		sv := s.byName[svc.Name]
		sv.mu.Lock()
		changed := ChangedInputs(sv.status.Inputs, svc.Inputs())
		if len(changed) == 0 {
			sv.mu.Unlock()
			continue
		}
		running := sv.proc != nil && !sv.stopped && !exited(sv.proc)
		// What the supervisor knows of it stays: its Setup and Ready ran.
		sv.Service = svc
		sv.status.Memory, sv.status.StandIn, sv.status.Version = svc.Memory, svc.StandIn, svc.Version
		sv.mu.Unlock()
		r := Restart{Name: svc.Name, Changed: inputsText(s.lay, changed)}
		if running {
			s.log("%s: restarting it, its inputs changed (%s)", svc.Name, r.Changed)
			out, err := s.action(ctx, svc.Name, "restart")
			r.Result = out
			if err != nil {
				r.Error = err.Error()
			}
		}
		rl.Restarted = append(rl.Restarted, r)
	}
	return rl, nil
}
