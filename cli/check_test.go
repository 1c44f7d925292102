package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
)

// TestValidateEnginesUnreachable: engines that do not answer leave the
// lab valid, each listed as not checked with why.
func TestValidateEnginesUnreachable(t *testing.T) {
	closed := closedPort(t)
	code, out, errOut := run(t, "", nil, "validate", "../labs/orders", "--engines",
		"--gateway", "http://"+closed, "--mysql", closed, "--clickhouse", closed)
	// Nothing checked is not a pass.
	if code != ExitRunFailed || !strings.Contains(errOut, "no engine could check anything") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`The lab "orders" is valid`,
		"Not checked: Flink jobs: the SQL gateway at http://" + closed + " does not answer",
		"Not checked: MySQL: 12 preset(s) and query step(s) and the lab's DDL: MySQL at lab_reader@" + closed + "/shop does not answer",
		"Not checked: ClickHouse: ",
		"The engine check took",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateEngineFlagsNeedEngines(t *testing.T) {
	code, _, errOut := run(t, "", nil, "validate", "../labs/orders", "--gateway", "http://127.0.0.1:1")
	if code != ExitUsage || !strings.Contains(errOut, "--engines") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// run --lab checks the source only while it renders OUT's lab.json, with
// the variable values OUT was rendered with.
func TestSourceForRun(t *testing.T) {
	out := t.TempDir()
	if code, o, e := run(t, "", nil, "render", "../labs/sensors", "-o", out, "-var", "hot=35"); code != ExitOK {
		t.Fatalf("render: %d %s %s", code, o, e)
	}
	lab, err := labdir.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := &Env{Stdout: io.Discard, Stderr: &stderr}
	src, parser, err := sourceForRun(context.Background(), env, "../labs/sensors", lab)
	if err != nil || src == nil || parser == nil {
		t.Fatalf("%v %v: %s", src, err, stderr.String())
	}
	if j := src.Job("site_heat"); j == nil || !strings.Contains(j.Query, ">= 35") || j.DeclRange.Filename == "" {
		t.Errorf("the source was not loaded with OUT's values and ranges: %+v", j)
	}

	changed := t.TempDir()
	if err := os.CopyFS(changed, os.DirFS("../labs/sensors")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(changed, "jobs.hcl"))
	os.WriteFile(filepath.Join(changed, "jobs.hcl"), []byte(strings.Replace(string(b), "GROUP BY site", "GROUP BY site\n    HAVING COUNT(*) > 1", 1)), 0o644)
	stderr.Reset()
	if src, _, err := sourceForRun(context.Background(), env, changed, lab); err != nil || src != nil || !strings.Contains(stderr.String(), "does not render") {
		t.Errorf("a changed source: %v %v %q", src != nil, err, stderr.String())
	}
}
