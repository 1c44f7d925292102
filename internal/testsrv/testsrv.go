package testsrv

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
	"sync/atomic"
	"testing"
	"time"
)

// EnvVar selects what happens when a server binary is missing; see the
// package documentation.
const EnvVar = "LABGEN_TEST_SERVERS"

const (
	// startTimeout bounds install + start + readiness. Generous because CI
	// machines are shared; a healthy start takes well under a second.
	startTimeout = 60 * time.Second
	// stopTimeout bounds the wait for a killed server to be reaped.
	stopTimeout = 10 * time.Second
	// dirPrefix names server directories in os.TempDir(), so stale ones can
	// be found and swept.
	dirPrefix = "labgen-testsrv-"
	// portAttempts: a free port is found by binding :0 and releasing it, so
	// another process can take it before the server binds; retry then.
	portAttempts = 3
)

// mainActive is set by Run: without it nobody would stop shared servers.
var mainActive atomic.Bool

// registry holds the stop functions of the shared servers, run by Run after
// the last test.
var registry struct {
	mu    sync.Mutex
	stops []func() error
}

// Main runs the package's tests and then stops the servers they started. Use
// it as the whole TestMain:
//
//	func TestMain(m *testing.M) { testsrv.Main(m) }
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for packages that have their own TestMain: it runs m, stops the
// shared servers, and returns the exit code for os.Exit.
func Run(m *testing.M) int {
	mainActive.Store(true)
	code := m.Run()
	if err := stopAll(); err != nil {
		// The tests themselves passed or failed already; a teardown problem
		// is reported but does not change their verdict.
		fmt.Fprintln(os.Stderr, "testsrv: stopping servers:", err)
	}
	return code
}

func register(stop func() error) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.stops = append(registry.stops, stop)
}

func stopAll() error {
	registry.mu.Lock()
	stops := registry.stops
	registry.stops = nil
	registry.mu.Unlock()
	var errs []error
	for _, stop := range stops {
		errs = append(errs, stop())
	}
	return errors.Join(errs...)
}

// shared starts one server per test binary and remembers a start failure, so
// later tests fail fast with the same error instead of retrying.
type shared[T any] struct {
	mu      sync.Mutex
	started bool
	srv     *T
	err     error
}

func (s *shared[T]) get(start func() (*T, func() error, error)) (*T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		var stop func() error
		s.srv, stop, s.err = start()
		if s.err == nil {
			register(stop)
		}
	}
	return s.srv, s.err
}

// binaries resolves the named executables or ends the test according to
// LABGEN_TEST_SERVERS. It returns only when all were found.
func binaries(t testing.TB, debPkg string, names ...string) []string {
	t.Helper()
	mode := os.Getenv(EnvVar)
	switch mode {
	case "", "require":
	case "off":
		t.Skipf("testsrv: database servers are turned off (%s=off)", EnvVar)
	default:
		t.Fatalf("testsrv: %s=%q: want unset, \"require\" or \"off\"", EnvVar, mode)
	}
	if !mainActive.Load() {
		t.Fatal("testsrv: shared servers are stopped by testsrv.Main; add " +
			"`func TestMain(m *testing.M) { testsrv.Main(m) }` to this package's tests " +
			"(or call testsrv.Run from an existing TestMain)")
	}
	paths := make([]string, len(names))
	for i, name := range names {
		p, err := lookBin(name)
		if err == nil {
			paths[i] = p
			continue
		}
		msg := fmt.Sprintf("testsrv: %s not found in PATH or /usr/sbin (install Debian package %s)", name, debPkg)
		if mode == "require" {
			t.Fatalf("%s; %s=require", msg, EnvVar)
		}
		t.Skipf("%s; set %s=require to fail instead", msg, EnvVar)
	}
	return paths
}

// lookBin also searches the sbin directories, where Debian puts the server
// daemons but which are not on a normal user's PATH.
func lookBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", name)
}

// serverDir is a server's private directory in os.TempDir(). It is not a
// t.TempDir because the server outlives the test that started it.
type serverDir struct {
	path string
	lock *os.File // held while the directory is in use; see lockDir
}

var sweepOnce sync.Once

func newServerDir(kind string) (*serverDir, error) {
	sweepOnce.Do(sweepStale)
	path, err := os.MkdirTemp("", dirPrefix+kind+"-*")
	if err != nil {
		return nil, fmt.Errorf("create server directory: %w", err)
	}
	lock, err := lockDir(path)
	if err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("lock server directory: %w", err)
	}
	return &serverDir{path: path, lock: lock}, nil
}

func (d *serverDir) join(elem ...string) string {
	return filepath.Join(append([]string{d.path}, elem...)...)
}

func (d *serverDir) remove() error {
	err := os.RemoveAll(d.path)
	if d.lock != nil {
		d.lock.Close()
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", d.path, err)
	}
	return nil
}

// proc is a running server process.
type proc struct {
	name    string
	cmd     *exec.Cmd
	out     *os.File
	logPath string // the server's own log, quoted in errors
	exited  chan struct{}
	waitErr error // valid once exited is closed
}

// startProc starts cmd with its stdout and stderr in outPath.
func startProc(name string, cmd *exec.Cmd, outPath, logPath string) (*proc, error) {
	out, err := os.Create(outPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := startCmd(cmd); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, out: out, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	return p, nil
}

// stop kills the process (and anything it spawned) and waits for it. The
// data is thrown away anyway, so there is nothing to shut down gracefully.
func (p *proc) stop() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	killTree(p.cmd)
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopTimeout):
		return fmt.Errorf("%s (pid %d) still running %s after SIGKILL", p.name, p.cmd.Process.Pid, stopTimeout)
	}
}

// waitReady polls probe until it succeeds, the process exits, or the
// deadline passes.
func (p *proc) waitReady(deadline time.Time, probe func(context.Context) error) error {
	var last error
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited during startup (%v)%s", p.name, p.waitErr, p.logs())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		last = probe(ctx)
		cancel()
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v%s", p.name, startTimeout, last, p.logs())
		}
		select {
		case <-p.exited:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// logs quotes the end of the server's output and log for error messages.
func (p *proc) logs() string {
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

// portInUse reports whether the start failed because another process took
// the port between freePort and the server's bind.
func (p *proc) portInUse() bool {
	for _, path := range []string{p.out.Name(), p.logPath} {
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
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort asks the kernel for an unused port on 127.0.0.1. The port is
// released before the server binds it; callers retry on a clash.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// dbSeq keeps database and user names unique within the test binary.
var dbSeq atomic.Int64

// dbName derives a database name from the test name, so a leftover database
// in a server log points at its test. Only [a-z0-9_] is kept, which needs no
// quoting in either server.
func dbName(t testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	fmt.Fprintf(&b, "_%d", dbSeq.Add(1))
	return b.String()
}
