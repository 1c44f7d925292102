package proc

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

// Poll ends for each of its four reasons, and says which.
func TestPoll(t *testing.T) {
	pace := Pace{Timeout: time.Second, Probe: 100 * time.Millisecond, Interval: 5 * time.Millisecond}
	calls := 0
	err := Poll(context.Background(), time.Now().Add(time.Second), pace, nil, func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("ready on the third probe: %v after %d", err, calls)
	}
	var late *Late
	err = Poll(context.Background(), time.Now().Add(20*time.Millisecond), pace, nil, func(context.Context) error { return errors.New("still down") })
	if !errors.As(err, &late) || late.Last.Error() != "still down" {
		t.Errorf("past the deadline: %v", err)
	}
	gone := make(chan struct{})
	close(gone)
	if err := Poll(context.Background(), time.Now().Add(time.Second), pace, gone, func(context.Context) error { return errors.New("x") }); !errors.Is(err, ErrGone) {
		t.Errorf("gone: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := Poll(ctx, time.Now().Add(time.Minute), pace, nil, func(context.Context) error { return errors.New("x") }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A Final error ends Poll at once, unwrapped.
func TestPollFinal(t *testing.T) {
	calls := 0
	failed := errors.New("kafka failed")
	err := Poll(context.Background(), time.Now().Add(time.Minute), Pace{Interval: time.Millisecond}, nil, func(context.Context) error {
		calls++
		return Final(failed)
	})
	if err != failed || calls != 1 {
		t.Errorf("Poll = %v after %d probes, want %v after 1", err, calls, failed)
	}
}
