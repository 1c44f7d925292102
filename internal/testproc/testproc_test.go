package testproc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestName(t *testing.T) {
	if got := Name(t, '_', 40, 7); got != "t_testname_7" {
		t.Errorf("Name = %q", got)
	}
	t.Run("Sub Test/x", func(t *testing.T) {
		if got := Name(t, '-', 12, 1); got != "t-testname-s-1" {
			t.Errorf("Name = %q", got)
		}
	})
}

// A shared server starts once, its stop runs in Run's teardown, and Get
// says so afterwards.
func TestShared(t *testing.T) {
	var servers Servers
	var sh Shared[string]
	starts, stops := 0, 0
	start := func() (*string, func() error, error) {
		starts++
		s := "srv"
		return &s, func() error { stops++; return nil }, nil
	}
	a, err := sh.Get(&servers, start)
	b, _ := sh.Get(&servers, start)
	if err != nil || a != b || starts != 1 {
		t.Fatalf("Get: %v, %v, %v, %d starts", a, b, err, starts)
	}
	if err := servers.stopAll(); err != nil || stops != 1 {
		t.Fatalf("stopAll: %v, %d stops", err, stops)
	}
	if _, err := sh.Get(&servers, start); !errors.Is(err, ErrStopped) || starts != 1 {
		t.Errorf("Get after the teardown: %v", err)
	}
	if sh.Started() != a {
		t.Error("Started forgot the server")
	}

	// A failed start is remembered.
	var failing Shared[string]
	boom := errors.New("boom")
	for range 2 {
		if _, err := failing.Get(&servers, func() (*string, func() error, error) { starts++; return nil, nil, boom }); err != boom {
			t.Errorf("failed start: %v", err)
		}
	}
	if starts != 2 {
		t.Errorf("%d starts, want 2", starts)
	}
}

func TestProcAndDir(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	d, err := NewDir("labgen-testproc-", "x")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(d.Path), "labgen-testproc-x-") {
		t.Errorf("directory %s", d.Path)
	}
	pace := Pace{Timeout: time.Second, Probe: time.Second, Interval: 10 * time.Millisecond}

	// A server that dies during startup is reported with its output.
	p, err := StartProc("dies", exec.Command(sh, "-c", "echo bind: address already in use; exit 3"), d.Join("dies.out"), "")
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(time.Now().Add(time.Second), pace, func(context.Context) error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "dies exited during startup") || !strings.Contains(err.Error(), "address already in use") || !p.PortInUse() {
		t.Errorf("WaitReady: %v (PortInUse %v)", err, p.PortInUse())
	}

	// RetryPorts tries again after a clash, up to PortAttempts times.
	attempts := 0
	_, _, err = RetryPorts(func() (int, *Proc, error) { attempts++; return 0, p, errors.New("clash") })
	if err == nil || attempts != PortAttempts {
		t.Errorf("RetryPorts: %v after %d attempts", err, attempts)
	}

	// Stop kills a running server.
	p, err = StartProc("sleeps", exec.Command(sh, "-c", "sleep 30"), d.Join("sleeps.out"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists: %v", d.Path, err)
	}
}
