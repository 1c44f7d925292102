package native

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// A service killed after it was healthy comes back by itself, as compose's
// restart: unless-stopped brings a container back; one that keeps exiting
// is restarted further and further apart; a stop asked for stays a stop.
func TestSupervisorHeals(t *testing.T) {
	lay, _ := NewLayout(t.TempDir())
	ok := Probe{Func: func(context.Context) error { return nil }}
	sup, err := NewSupervisor(lay, []Service{
		{Name: "steady", Argv: []string{"sleep", "600"}, Health: ok},
		{Name: "flaky", Argv: []string{"sh", "-c", "sleep 0.2; exit 3"}, Health: ok},
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var delays []int // the n of each restart, per service
	sup.restartDelay = func(n int) time.Duration {
		mu.Lock()
		delays = append(delays, n)
		mu.Unlock()
		return time.Duration(n+1) * 50 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() { cancel(); <-done }()

	status := func(name string) ServiceStatus {
		st, err := lay.ReadStatus()
		if err != nil {
			return ServiceStatus{} // not written yet
		}
		s, _ := st.Service(name)
		return s
	}
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s; status %+v %+v", what, status("steady"), status("flaky"))
			}
		}
	}
	until("steady healthy", func() bool { return status("steady").State == StateHealthy })
	first := status("steady").PID
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	until("steady back after kill -9", func() bool {
		s := status("steady")
		return s.State == StateHealthy && s.PID != first && s.PID != 0 && s.Restarts == 1
	})
	if s := status("steady"); !strings.Contains(s.LastExit, "signal: killed") {
		t.Errorf("last exit %q does not say how it ended", s.LastExit)
	}

	// flaky exits 0.2 s after every start: its restarts' n climb 0, 1, 2.
	until("flaky restarted three times", func() bool { return status("flaky").Restarts >= 3 })
	mu.Lock()
	var flaky []int
	for _, n := range delays[1:] { // delays[0] was steady's
		flaky = append(flaky, n)
	}
	mu.Unlock()
	if len(flaky) < 3 || flaky[0] != 0 || flaky[1] != 1 || flaky[2] != 2 {
		t.Errorf("flaky's restarts waited for n = %v, want 0, 1, 2, …", flaky)
	}

	// A stop asked for is not undone.
	c, err := Connect(lay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Service(ctx, "stop", "steady"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // ten times the restart delay
	if s := status("steady"); s.State != StateStopped || s.Restarts != 1 {
		t.Errorf("steady after a stop: %+v", s)
	}
}

func TestRestartDelay(t *testing.T) {
	var got []time.Duration
	for n := range 7 {
		got = append(got, defaultRestartDelay(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("delays %v, want %v", got, want)
	}
}
