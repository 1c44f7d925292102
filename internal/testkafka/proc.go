package testkafka

// The process handling below follows internal/testsrv (same start, stop,
// readiness and stale-directory rules); it is repeated here rather than
// exported from there so that each package stays self-contained.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// serverDir is the broker's private directory in os.TempDir(). It is not a
// t.TempDir because the broker outlives the test that started it.
type serverDir struct {
	path string
	lock *os.File // held while the directory is in use; see lockDir
}

var sweepOnce sync.Once

func newServerDir() (*serverDir, error) {
	sweepOnce.Do(sweepStale)
	path, err := os.MkdirTemp("", dirPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("create broker directory: %w", err)
	}
	lock, err := lockDir(path)
	if err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("lock broker directory: %w", err)
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

// proc is the running JVM.
type proc struct {
	name    string
	cmd     *exec.Cmd
	out     *os.File
	exited  chan struct{}
	waitErr error // valid once exited is closed
}

// startProc starts cmd with its stdout and stderr in outPath.
func startProc(name string, cmd *exec.Cmd, outPath string) (*proc, error) {
	out, err := os.Create(outPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := startCmd(cmd); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	return p, nil
}

// stop kills the JVM and waits for it. The data is thrown away anyway, so
// there is nothing to shut down gracefully.
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
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
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
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// logs quotes the end of the broker's output for error messages.
func (p *proc) logs() string {
	if t := tailFile(p.out.Name(), 20); t != "" {
		return fmt.Sprintf("\n--- %s (last lines):\n%s", p.out.Name(), t)
	}
	return ""
}

// portInUse reports whether the start failed because another process took
// a port between freePort and the broker's bind.
func (p *proc) portInUse() bool {
	data, _ := os.ReadFile(p.out.Name())
	return bytes.Contains(bytes.ToLower(data), []byte("address already in use"))
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return tail(string(data), n)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort asks the kernel for an unused port on 127.0.0.1. The port is
// released before the broker binds it; callers retry on a clash.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
