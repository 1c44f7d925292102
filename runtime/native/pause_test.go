package native

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// groupStates is the state letter (/proc/PID/stat's third field) of each
// live process of the group pgid: 'T' is stopped by a signal.
func groupStates(pgid int) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// A zombie has ended; its reaper (init here) may be slow.
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out[pid] = f[0]
		}
	}
	return out
}

// A pause on real processes: SIGSTOP freezes the whole process group (a
// shell and its sleep), the supervisor keeps it, shows it paused and
// does not restart it; unpause resumes the same process; a stop, a reload
// and labgen down of a paused service end it promptly, leaving nothing
// frozen behind.
func TestSupervisorPause(t *testing.T) {
	lay, err := NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	up := Probe{Func: func(context.Context) error { return nil }}
	// A shell in front of a child, as a JVM's start script: the pause
	// must reach both. The shell ends on SIGTERM (its default).
	loop := []string{"sh", "-c", "while :; do sleep 0.1; done"}
	services := []Service{
		{Name: "a", Argv: loop, Health: up},
		{Name: "b", Argv: []string{"sleep", "600"}, Health: up},
	}
	sup, err := NewSupervisor(lay, services)
	if err != nil {
		t.Fatal(err)
	}
	// Were a paused service taken for dead, it would come back at once.
	sup.restartDelay = func(int) time.Duration { return 10 * time.Millisecond }
	var next []Service
	sup.Replan(func(context.Context) ([]Service, error) { return next, nil })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if _, err := WaitUp(ctx, lay, 30*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	c, err := Connect(lay)
	if err != nil {
		t.Fatal(err)
	}
	status := func(name string) ServiceStatus {
		st, err := lay.ReadStatus()
		if err != nil {
			t.Fatal(err)
		}
		s, _ := st.Service(name)
		return s
	}
	// all waits until every process of the group is in state want (or
	// none is, with not).
	all := func(pgid int, want string, not bool) map[int]string {
		t.Helper()
		var got map[int]string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			got = groupStates(pgid)
			ok := len(got) > 0
			for _, st := range got {
				ok = ok && (st == want) != not
			}
			if ok {
				return got
			}
		}
		t.Fatalf("group %d: states %v, want every one %s%s", pgid, got, map[bool]string{true: "not "}[not], want)
		return nil
	}

	a := status("a")
	began := time.Now()
	out, err := c.Service(ctx, "pause", "a")
	if want := "SIGSTOP to a's process group (pid " + strconv.Itoa(a.PID) + ")"; err != nil || !strings.HasPrefix(out, want) {
		t.Fatalf("pause: %q, %v; want %q…", out, err, want)
	}
	// The shell and its sleep, both stopped.
	if got := all(a.PID, "T", false); len(got) < 2 {
		t.Logf("only %v stopped (the shell between two sleeps)", got)
	}
	if s := status("a"); s.State != StatePaused || s.PID != a.PID || s.Since.Before(began.Add(-time.Second)) {
		t.Fatalf("after pause: %+v", s)
	}
	if out, err := c.Service(ctx, "pause", "a"); err != nil || !strings.Contains(out, "already paused") {
		t.Fatalf("second pause: %q, %v", out, err)
	}
	// Several probe intervals (500 ms) and restart delays later: the same
	// frozen process, never restarted.
	time.Sleep(2 * time.Second)
	if s := status("a"); s.State != StatePaused || s.PID != a.PID || s.Restarts != 0 || s.LastExit != "" {
		t.Fatalf("2 s after pause: %+v", s)
	}
	all(a.PID, "T", false)

	out, err = c.Service(ctx, "unpause", "a")
	if err != nil || !strings.HasPrefix(out, "SIGCONT to a's process group (pid "+strconv.Itoa(a.PID)+")") || !strings.Contains(out, "after 2") {
		t.Fatalf("unpause: %q, %v", out, err)
	}
	all(a.PID, "T", true)
	if s := status("a"); s.State != StateHealthy || s.PID != a.PID || s.Restarts != 0 {
		t.Fatalf("after unpause: %+v", s)
	}
	if out, err := c.Service(ctx, "unpause", "a"); err != nil || !strings.Contains(out, "not paused") {
		t.Fatalf("unpause of a running service: %q, %v", out, err)
	}

	// A stop of a paused service: SIGCONT first, so SIGTERM ends it at
	// once rather than the SIGKILL after stopGrace.
	if _, err := c.Service(ctx, "pause", "a"); err != nil {
		t.Fatal(err)
	}
	all(a.PID, "T", false)
	began = time.Now()
	out, err = c.Service(ctx, "stop", "a")
	if err != nil || !strings.Contains(out, "SIGCONT") || time.Since(began) > 3*time.Second {
		t.Fatalf("stop of a paused service: %q, %v, after %s", out, err, time.Since(began))
	}
	if got := groupStates(a.PID); len(got) > 0 {
		t.Fatalf("processes of a left after its stop: %v", got)
	}
	if _, err := c.Service(ctx, "pause", "a"); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("pause of a stopped service: %v", err)
	}
	if out, err := c.Service(ctx, "unpause", "a"); err != nil || !strings.Contains(out, "not paused (stopped)") {
		t.Fatalf("unpause of a stopped service: %q, %v", out, err)
	}

	// A reload that restarts a paused service resumes it first.
	b := status("b")
	if _, err := c.Service(ctx, "pause", "b"); err != nil {
		t.Fatal(err)
	}
	all(b.PID, "T", false)
	next = []Service{services[0], {Name: "b", Argv: []string{"sleep", "601"}, Health: up}}
	began = time.Now()
	rl, err := c.Reload(ctx)
	if err != nil || len(rl.Restarted) != 1 || rl.Restarted[0].Error != "" || time.Since(began) > 3*time.Second {
		t.Fatalf("reload of a paused service: %+v, %v, after %s", rl, err, time.Since(began))
	}
	if got := groupStates(b.PID); len(got) > 0 {
		t.Fatalf("b's old process left after the reload: %v", got)
	}
	b = status("b")
	if b.State != StateHealthy || !alive(b.PID) {
		t.Fatalf("b after the reload: %+v", b)
	}

	// labgen down with a paused service: nothing left, frozen or not.
	if _, err := c.Service(ctx, "pause", "b"); err != nil {
		t.Fatal(err)
	}
	all(b.PID, "T", false)
	began = time.Now()
	if _, err := Down(ctx, lay, false); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("down with a paused service took %s (SIGTERM not delivered?)", took)
	}
	if got := groupStates(b.PID); len(got) > 0 {
		t.Fatalf("b's processes left after down: %v", got)
	}
}

// A paused service killed from outside (SIGKILL reaches a stopped
// process) is exited, and not restarted: the pause was asked for.
func TestSupervisorPausedExit(t *testing.T) {
	lay, _ := NewLayout(t.TempDir())
	sup, err := NewSupervisor(lay, []Service{{Name: "a", Argv: []string{"sleep", "600"}, Health: Probe{Func: func(context.Context) error { return nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	sup.restartDelay = func(int) time.Duration { return 10 * time.Millisecond }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() { cancel(); <-done }()
	st, err := WaitUp(ctx, lay, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := st.Service("a")
	c, err := Connect(lay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Service(ctx, "pause", "a"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(a.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var s ServiceStatus
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, _ = lay.ReadStatus()
		if s, _ = st.Service("a"); s.State == StateExited {
			break
		}
	}
	time.Sleep(300 * time.Millisecond) // thirty restart delays
	st, _ = lay.ReadStatus()
	s, _ = st.Service("a")
	if s.State != StateExited || s.Restarts != 0 || !strings.Contains(s.LastExit, "killed while paused") {
		t.Fatalf("a paused and killed: %+v", s)
	}
	if out, err := c.Service(ctx, "unpause", "a"); err != nil || !strings.Contains(out, "not paused (exited)") {
		t.Fatalf("unpause after the exit: %q, %v", out, err)
	}
}
