package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// down --volumes removes data only where labgen render wrote the lab:
// a directory that merely holds a lab.json (and a .native of its own)
// keeps everything, whatever its lock says or does not say.
func TestDownVolumesNeedsALabgenLock(t *testing.T) {
	for name, lock := range map[string]string{
		"no lock":      "",
		"another lock": "# Some other tool's lock.\n[files]\nabc  x\n",
		"a link":       "link",
	} {
		dir := seedLab(t, "", nil)
		keep := filepath.Join(dir, ".native", "data", "mysql", "keep")
		if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		switch lock {
		case "":
		case "link":
			// A lock of labgen's, but elsewhere.
			elsewhere := filepath.Join(t.TempDir(), "labgen.lock")
			if err := os.WriteFile(elsewhere, []byte(labgenLock), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(dir, "labgen.lock")); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(filepath.Join(dir, "labgen.lock"), []byte(lock), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := run(t, dir, nil, "down", dir, "--volumes")
		if code != ExitUsage || !strings.Contains(stderr, "down --volumes removes data only from a directory that labgen render wrote; nothing was stopped or removed") {
			t.Errorf("%s: exit %d, %q %q", name, code, stdout, stderr)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: down --volumes removed %s: %v", name, keep, err)
		}
	}
}

// With labgen's lock, down --volumes removes the native stack's state.
func TestDownVolumesRemovesState(t *testing.T) {
	dir := seedLab(t, "", nil)
	if err := os.WriteFile(filepath.Join(dir, "labgen.lock"), []byte(labgenLock), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".native", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, nil, "down", dir, "--volumes")
	if code != ExitOK || !strings.Contains(stdout, "its state (DIR/.native) is removed") {
		t.Errorf("exit %d, %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".native")); !os.IsNotExist(err) {
		t.Errorf(".native is still there: %v", err)
	}
}

// labgenLock is the head of a lock labgen render writes.
const labgenLock = `# Rendered by labgen from the lab "orders". Do not edit: change the lab and render again.
# What this directory is. Columns are separated by two spaces.

[labgen]
version  test
go  go1.26

[files]
`
