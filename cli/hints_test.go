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

// TestWrongPaths: a path that is not what the command reads is a usage
// error (exit 2, not 3 "a run failed") that says what is there: the
// records (and sets of them) of the lab directory, the directory beside
// a misspelt one.
func TestWrongPaths(t *testing.T) {
	tmp := t.TempDir()
	for _, id := range []string{"20260101-100000-aaaa", "20260102-100000-bbbb"} {
		d := filepath.Join(tmp, "out", "records", id)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "record.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := filepath.Join(tmp, "out", "records", "20260103-100000-cccc")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(set, "set.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	newestFirst := "The records in DIR/out/records (newest first):\n  DIR/out/records/20260103-100000-cccc (a set of runs, labgen run --repeat)\n  DIR/out/records/20260102-100000-bbbb\n  DIR/out/records/20260101-100000-aaaa\n"
	for _, args := range [][]string{
		{"record", "show", filepath.Join(out, "records", "2026")},
		{"record", "show", out},
		{"record", "diff", filepath.Join(out, "records", "20260101-100000-aaaa", "nope"), out},
		{"record", "publish", filepath.Join(out, "records", "x"), "-o", filepath.Join(tmp, "site")},
	} {
		code, _, errOut := run(t, tmp, nil, args...)
		if code != ExitUsage || !strings.Contains(errOut, "no lab record at") || !strings.Contains(errOut, newestFirst) {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
	}
	code, _, errOut := run(t, tmp, nil, "run", filepath.Join(tmp, "otu"))
	if code != ExitUsage || !strings.Contains(errOut, "DIR/otu does not exist") || !strings.Contains(errOut, "Did you mean DIR/out?") {
		t.Errorf("run of a misspelt directory: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, tmp, nil, "status", out)
	if code != ExitUsage || !strings.Contains(errOut, "DIR/out is not a rendered lab directory: it has no lab.json") {
		t.Errorf("status of a directory without lab.json: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, tmp, nil, "render", "../labs/ordrs", "-o", out)
	if code != ExitUsage || !strings.Contains(errOut, "no lab directory ../labs/ordrs") || !strings.Contains(errOut, "Did you mean ../labs/orders?") {
		t.Errorf("render of a misspelt lab: exit %d: %s", code, errOut)
	}
}
