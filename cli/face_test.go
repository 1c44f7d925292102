package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
)

// chooseFace: a flag decides; without one, up starts compose, run acts on
// a native stack that runs, down stops one that ran.
func TestChooseFace(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "compose.yaml"), []byte("services: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := func(f face) string { return f.Name() }
	for _, g := range []guess{composeUnlessFlagged, nativeIfRunning, nativeIfRan} {
		if got := name(chooseFace(dir, false, true, "", g)); got != "kubernetes" {
			t.Errorf("--kubernetes: %s", got)
		}
		if got := name(chooseFace(dir, true, false, "", g)); got != "native" {
			t.Errorf("--native: %s", got)
		}
	}
	// A native stack ran here (its state is left) and does not run now.
	if err := os.MkdirAll(filepath.Join(dir, labdir.NativeDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, labdir.NativeDir, "status.json"), []byte(`{"down": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := name(chooseFace(dir, false, false, "", composeUnlessFlagged)); got != "compose" {
		t.Errorf("up without a flag: %s", got)
	}
	if got := name(chooseFace(dir, false, false, "", nativeIfRunning)); got != "compose" {
		t.Errorf("run, the native stack down: %s", got)
	}
	if got := name(chooseFace(dir, false, false, "", nativeIfRan)); got != "native" {
		t.Errorf("down, a native stack ran: %s", got)
	}
	// It runs: its status is not down and its control file is there.
	os.WriteFile(filepath.Join(dir, labdir.NativeDir, "status.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, labdir.NativeDir, "control.json"), []byte(`{}`), 0o644)
	if got := name(chooseFace(dir, false, false, "", nativeIfRunning)); got != "native" {
		t.Errorf("run, a native stack runs: %s", got)
	}
}
