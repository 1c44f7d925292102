package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/native"
)

// Before any native stack ran: status says how to start one, down says
// there was none, and neither pretends anything happened.
func TestNativeCommandsWithoutAStack(t *testing.T) {
	dir := seedLab(t, "MYSQL_READER_USER=r\nMYSQL_READER_PASSWORD=p\n", nil)
	code, _, stderr := run(t, dir, nil, "status", dir)
	if code != ExitRunFailed || !strings.Contains(stderr, "no native stack was started for DIR (labgen up DIR --native)") {
		t.Errorf("status: exit %d, %q", code, stderr)
	}
	// No compose.yaml in this directory: down means the native stack.
	code, stdout, stderr := run(t, dir, nil, "down", dir)
	if code != ExitOK || !strings.Contains(stdout, "No native stack was running") {
		t.Errorf("down: exit %d, %q %q", code, stdout, stderr)
	}
	code, _, stderr = run(t, dir, nil, "native-supervise")
	if code != ExitUsage || !strings.Contains(stderr, "one rendered lab directory") {
		t.Errorf("native-supervise without a directory: exit %d, %q", code, stderr)
	}
}

// The supervisor's command is internal: the command list leaves it out.
func TestNativeSuperviseIsHidden(t *testing.T) {
	_, stdout, _ := run(t, "", nil, "--help")
	if strings.Contains(stdout, "native-supervise") || !strings.Contains(stdout, "status") {
		t.Errorf("command list:\n%s", stdout)
	}
}

// labgen up on a running stack unpauses a paused service (a real sleep
// under a real supervisor), else it would wait for it until its timeout.
func TestStartDownUnpauses(t *testing.T) {
	lay, err := native.NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sup, err := native.NewSupervisor(lay, []native.Service{{Name: "a", Argv: []string{"sleep", "600"}, Health: native.Probe{Func: func(context.Context) error { return nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if _, err := native.WaitUp(ctx, lay, 30*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	c, err := native.Connect(lay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Service(ctx, "pause", "a"); err != nil {
		t.Fatal(err)
	}
	var said []string
	if err := startDown(ctx, lay, func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }); err != nil {
		t.Fatal(err)
	}
	st, err := lay.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := st.Service("a"); s.State != native.StateHealthy || len(said) != 2 || !strings.Contains(said[0], "was paused; unpausing it") {
		t.Fatalf("after startDown: %+v; said %q", s, said)
	}
}
