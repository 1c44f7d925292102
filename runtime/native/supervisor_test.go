package native

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The supervisor on real processes (sleep), driven through its control
// API as labgen down and a compose step drive it.
func TestSupervisor(t *testing.T) {
	lay, err := NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	readyRuns := 0
	marker := lay.Data("b") + "/started"
	services := []Service{
		{Name: "a", Argv: []string{"sleep", "600"}, Health: Probe{Func: func(context.Context) error { return nil }}},
		{Name: "b", Argv: []string{"sh", "-c", "touch started; exec sleep 600"}, Needs: []string{"a"},
			Health: Probe{Func: func(context.Context) error { _, err := os.Stat(marker); return err }},
			Ready:  func(context.Context) error { readyRuns++; return nil }},
	}
	sup, err := NewSupervisor(lay, services)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()

	st, err := WaitUp(ctx, lay, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Service("b")
	if b.PID == 0 || !alive(b.PID) {
		t.Fatalf("b: %+v", b)
	}
	c, err := Connect(lay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Service(ctx, "stop", "b"); err != nil {
		t.Fatal(err)
	}
	if alive(b.PID) {
		t.Fatalf("b (pid %d) still runs after stop", b.PID)
	}
	st, _ = lay.ReadStatus()
	if s, _ := st.Service("b"); s.State != StateStopped {
		t.Fatalf("after stop: %+v", s)
	}
	os.Remove(marker)
	out, err := c.Service(ctx, "start", "b")
	if err != nil || !strings.Contains(out, "healthy") {
		t.Fatalf("start: %q, %v", out, err)
	}
	st, _ = lay.ReadStatus()
	b2, _ := st.Service("b")
	if b2.State != StateHealthy || b2.PID == b.PID || readyRuns != 1 {
		t.Fatalf("after start: %+v, Ready ran %d times", b2, readyRuns)
	}
	if _, err := c.Service(ctx, "stop", "nope"); err == nil || !strings.Contains(err.Error(), "the stack runs a, b") {
		t.Fatalf("unknown service: %v", err)
	}
	a, _ := st.Service("a")
	msg, err := Down(ctx, lay, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if alive(a.PID) || alive(b2.PID) {
		t.Fatalf("processes left behind after down: %v %v", alive(a.PID), alive(b2.PID))
	}
	if !strings.Contains(msg, "is down") {
		t.Fatalf("down: %q", msg)
	}
	if _, err := Connect(lay); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("connect after down: %v", err)
	}
}

// A service that dies while starting fails the start with its log.
func TestSupervisorFailedStart(t *testing.T) {
	lay, _ := NewLayout(t.TempDir())
	sup, err := NewSupervisor(lay, []Service{
		{Name: "bad", Argv: []string{"sh", "-c", "echo no such table >&2; exit 3"}, Health: Probe{TCP: "127.0.0.1:1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	_, err = WaitUp(ctx, lay, 30*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "no such table") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("want the log and the exit status, got %v", err)
	}
	cancel()
	<-done
}

func alive(pid int) bool {
	if pid == 0 {
		return false
	}
	// A zombie still answers signal 0; /proc tells the state.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
