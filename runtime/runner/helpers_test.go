package runner

import (
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// renderLab renders lab into a new directory, without labgen's source,
// and returns the directory and the files.
func renderLab(t *testing.T, lab *schemas.Lab) (string, render.Files) {
	t.Helper()
	files, err := render.Render(lab, render.Options{NoSource: true, LabgenVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := render.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir, files
}

// editEnv rewrites dir/.env after edit changed its variables, and returns
// them.
func editEnv(t *testing.T, dir string, edit func(env map[string]string)) map[string]string {
	t.Helper()
	path := filepath.Join(dir, ".env")
	env, err := labdir.ReadEnv(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(env)
	var text strings.Builder
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(&text, "%s=%s\n", k, env[k])
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

// portOf is the port of a host:port address.
func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
