package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHints: a misspelt command or record action names the closest one,
// without the whole help; a rendered directory given as a lab names the
// lab it came from.
func TestHints(t *testing.T) {
	code, out, errOut := run(t, "", nil, "vaildate", "../labs/orders")
	if code != ExitUsage || !strings.Contains(errOut, `unknown command "vaildate". Did you mean validate?`) || strings.Contains(errOut, "Exit codes") || out != "" {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = run(t, "", nil, "record", "shwo", "x")
	if code != ExitUsage || !strings.Contains(errOut, "Did you mean show?") {
		t.Errorf("record shwo: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, "", nil, "record")
	if code != ExitUsage || !strings.Contains(errOut, "show, diff or publish") {
		t.Errorf("record: exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.json"), []byte(`{"format": 2, "name": "orders"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "", nil, "validate", dir)
	if flat := strings.Join(strings.Fields(errOut), " "); code != ExitLabErrors || !strings.Contains(flat, `rendered by labgen render (its lab.json is lab "orders")`) {
		t.Errorf("validate of a rendered directory: exit %d: %s", code, errOut)
	}
}
