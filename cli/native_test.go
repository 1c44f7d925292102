package cli

import (
	"strings"
	"testing"
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
