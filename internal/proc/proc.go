package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// StopTimeout bounds the wait for a killed server to be reaped.
const StopTimeout = 10 * time.Second

// PortAttempts is how often a server is started before a clash on its
// port is given up on: a free port is found by binding :0 and releasing
// it, so another process can take it before the server binds.
const PortAttempts = 3

// Dir is a server's private directory in os.TempDir(). It is not a
// t.TempDir because the server outlives the test that started it.
type Dir struct {
	Path string
	lock *os.File // held while the directory is in use; see lockDir
}

// sweeps runs sweepStale once per directory prefix.
var sweeps sync.Map // prefix → *sync.Once

// NewDir creates and locks a directory named prefix + kind + "-…" (prefix
// + "…" when kind is empty), after removing the directories of the prefix
// whose owner died.
func NewDir(prefix, kind string) (*Dir, error) {
	once, _ := sweeps.LoadOrStore(prefix, new(sync.Once))
	once.(*sync.Once).Do(func() { sweepStale(prefix) })
	pattern := prefix + "*"
	if kind != "" {
		pattern = prefix + kind + "-*"
	}
	path, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("create server directory: %w", err)
	}
	lock, err := lockDir(path)
	if err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("lock server directory: %w", err)
	}
	return &Dir{Path: path, lock: lock}, nil
}

// Join is filepath.Join(d.Path, elem...).
func (d *Dir) Join(elem ...string) string {
	return filepath.Join(append([]string{d.Path}, elem...)...)
}

// Remove removes the directory and releases its lock.
func (d *Dir) Remove() error {
	err := os.RemoveAll(d.Path)
	if d.lock != nil {
		d.lock.Close()
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", d.Path, err)
	}
	return nil
}

// Proc is a running server process.
type Proc struct {
	name    string
	cmd     *exec.Cmd
	out     *os.File
	logPath string // the server's own log, quoted in errors
	exited  chan struct{}
	waitErr error // valid once exited is closed
}

// StartProc starts cmd with its stdout and stderr appended to outPath
// (a restarted process keeps its earlier output). logPath, if not empty,
// is the server's own log: Logs and PortInUse look at it too.
func StartProc(name string, cmd *exec.Cmd, outPath, logPath string) (*Proc, error) {
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := startCmd(cmd); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{name: name, cmd: cmd, out: out, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process ID.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stop kills the process (and anything it spawned) and waits for it. The
// data is thrown away anyway, so there is nothing to shut down gracefully.
func (p *Proc) Stop() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	killTree(p.cmd)
	select {
	case <-p.exited:
		return nil
	case <-time.After(StopTimeout):
		return fmt.Errorf("%s (pid %d) still running %s after SIGKILL", p.name, p.cmd.Process.Pid, StopTimeout)
	}
}

// Terminate asks the process group to stop (SIGTERM, as docker stop
// does), and kills it when it is still there after grace.
func (p *Proc) Terminate(grace time.Duration) error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	termTree(p.cmd)
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
	}
	return p.Stop()
}

// SignalGroup sends sig to the process group: the process and what it
// spawned, as Terminate does (a SIGSTOP to the shell alone would leave
// its children running).
func (p *Proc) SignalGroup(sig syscall.Signal) error { return signalTree(p.cmd, sig) }

// Exited is closed when the process has exited; Err then says how.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Err is how the process exited (valid once Exited is closed).
func (p *Proc) Err() error { return p.waitErr }

// Pace is how WaitReady probes a starting server.
type Pace struct {
	// Timeout is the bound of the whole start, named when the deadline
	// passes.
	Timeout time.Duration
	// Probe bounds one probe.
	Probe time.Duration
	// Interval is the pause between probes.
	Interval time.Duration
}

// WaitReady polls probe until it succeeds, the process exits, or the
// deadline passes.
func (p *Proc) WaitReady(deadline time.Time, pace Pace, probe func(context.Context) error) error {
	err := Poll(context.Background(), deadline, pace, p.exited, probe)
	var late *Late
	switch {
	case errors.Is(err, ErrGone):
		return fmt.Errorf("%s exited during startup (%v)%s", p.name, p.waitErr, p.Logs())
	case errors.As(err, &late):
		return fmt.Errorf("%s not ready after %s: %v%s", p.name, pace.Timeout, late.Last, p.Logs())
	}
	return err
}

// ErrGone is Poll's answer when what it waited on went away (its gone
// channel closed): a process that exited while starting.
var ErrGone = errors.New("gone while waiting")

// Late is Poll's answer when the deadline passed; Last is the last
// probe's error.
type Late struct{ Last error }

func (l *Late) Error() string { return "not ready in time: " + l.Last.Error() }

// Final wraps a probe's error that no later probe can mend (a service
// failed, the supervisor died): Poll returns err itself at once.
func Final(err error) error { return &final{err} }

type final struct{ err error }

func (f *final) Error() string { return f.err.Error() }

// Poll is the one wait loop of the native stack and the test servers: it
// calls probe (each call bounded by pace.Probe, if set) every
// pace.Interval until probe returns nil (Poll returns nil), a Final error
// (that error), ctx ends (ctx.Err()), gone is closed (ErrGone; nil gone
// never closes) or deadline passes (*Late, with the last probe's error).
// Callers word the failure for their users.
func Poll(ctx context.Context, deadline time.Time, pace Pace, gone <-chan struct{}, probe func(context.Context) error) error {
	for {
		select {
		case <-gone:
			return ErrGone
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if pace.Probe > 0 {
			pctx, cancel = context.WithTimeout(ctx, pace.Probe)
		}
		last := probe(pctx)
		cancel()
		if last == nil {
			return nil
		}
		var f *final
		if errors.As(last, &f) {
			return f.err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return &Late{Last: last}
		}
		select {
		case <-gone:
			return ErrGone
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pace.Interval):
		}
	}
}

// Logs quotes the end of the server's output and log for error messages.
func (p *Proc) Logs() string {
	var b strings.Builder
	for _, path := range []string{p.out.Name(), p.logPath} {
		if path == "" {
			continue
		}
		if tail := tailFile(path, 20); tail != "" {
			fmt.Fprintf(&b, "\n--- %s (last lines):\n%s", path, tail)
		}
	}
	return b.String()
}

// PortInUse reports whether the start failed because another process took
// a port between FreePort and the server's bind.
func (p *Proc) PortInUse() bool {
	for _, path := range []string{p.out.Name(), p.logPath} {
		if path == "" {
			continue
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(bytes.ToLower(data), []byte("address already in use")) {
			return true
		}
	}
	return false
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return Tail(string(data), n)
}

// Tail is the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// FreePort asks the kernel for an unused port on 127.0.0.1. The port is
// released before the server binds it; callers retry on a clash (see
// PortAttempts and Proc.PortInUse).
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RetryPorts calls start until it succeeds, fails other than by a clash on
// a port (see Proc.PortInUse), or has clashed PortAttempts times, and
// returns what the last call returned. start returns the process it
// started, stopped again when it returns an error, or nil when none was
// started.
func RetryPorts[T any](start func() (T, *Proc, error)) (T, *Proc, error) {
	for attempt := 1; ; attempt++ {
		v, p, err := start()
		if err == nil || p == nil || !p.PortInUse() || attempt == PortAttempts {
			return v, p, err
		}
	}
}
