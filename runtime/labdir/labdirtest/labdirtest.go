// Package labdirtest writes lab directories for tests.
package labdirtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// WriteFiles writes files (path → content, paths relative and slash
// separated) into a new temporary directory and returns it.
func WriteFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Rendered writes lab.json of l and files (.env, sql/flink/JOB.sql, …)
// into a new temporary directory, as labgen render would, and returns it.
// files is not changed.
func Rendered(t testing.TB, l *schemas.Lab, files map[string]string) string {
	t.Helper()
	b, err := schemas.MarshalLab(l)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"lab.json": string(b)}
	for name, src := range files {
		all[name] = src
	}
	return WriteFiles(t, all)
}

// Load is Rendered, read back with labdir.Load.
func Load(t testing.TB, l *schemas.Lab, files map[string]string) *labdir.Lab {
	t.Helper()
	lab, err := labdir.Load(Rendered(t, l, files))
	if err != nil {
		t.Fatal(err)
	}
	return lab
}
