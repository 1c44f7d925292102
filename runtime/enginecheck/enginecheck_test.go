package enginecheck_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/enginecheck"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native/nativetest"
	"github.com/labgen/labgen/schemas"
)

// source is a lab loaded from its source and rendered.
type source struct {
	lab      *schemas.Lab
	parser   *schemas.Parser
	rendered *labdir.Lab
}

func load(t *testing.T, dir string) source {
	t.Helper()
	p := schemas.NewParser()
	lab, diags := p.Load(dir, schemas.Options{})
	if diags.HasErrors() {
		t.Fatalf("%s: %s", dir, diags.Error())
	}
	files, err := render.Render(lab, render.Options{NoSource: true, LabgenVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := render.Write(out, files); err != nil {
		t.Fatal(err)
	}
	rl, err := labdir.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return source{lab, p, rl}
}

func (s source) check(t *testing.T, gw string) *enginecheck.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := enginecheck.Check(ctx, s.lab, enginecheck.Options{Gateway: gw, Env: s.rendered.Env, Source: s.parser.SQLSourceAt,
		Progress: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checked {
		t.Logf("checked: %s", c)
	}
	for _, c := range res.NotChecked {
		t.Logf("not checked: %s", c)
	}
	t.Logf("took %s", res.Took.Round(time.Millisecond))
	return res
}

// edit replaces old with new in a lab's file.
type edit struct{ file, old, new string }

// copyLab copies a lab's source to a temporary directory, with edits
// applied.
func copyLab(t *testing.T, dir string, edits []edit) string {
	t.Helper()
	out := t.TempDir()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, e := range edits {
			if e.file != filepath.ToSlash(rel) {
				continue
			}
			if !strings.Contains(string(b), e.old) {
				t.Fatalf("%s has no %q", rel, e.old)
			}
			b = []byte(strings.Replace(string(b), e.old, e.new, 1))
		}
		os.MkdirAll(filepath.Join(out, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(out, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func at(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "?"
	}
	return fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
}

// TestFlinkPlanner asks a real Flink SQL gateway (Flink 1.20.1 with the
// labs' connector jars, one JVM for every case) to plan the three labs,
// which it accepts, and labs with an error only the planner sees, which
// come back at their line and column in jobs/*.sql or the .hcl heredoc.
func TestFlinkPlanner(t *testing.T) {
	nativetest.Enabled(t)
	labs := map[string]source{}
	var rendered []*labdir.Lab
	for _, name := range []string{"orders", "sensors", "orders_pg"} {
		labs[name] = load(t, filepath.Join("..", "..", "labs", name))
		rendered = append(rendered, labs[name].rendered)
	}
	gw := nativetest.Gateway(t, rendered...)

	for _, name := range []string{"orders", "sensors", "orders_pg"} {
		t.Run(name, func(t *testing.T) {
			res := labs[name].check(t, gw)
			for _, d := range res.Diags {
				t.Errorf("%s: %s: %s", at(d), d.Summary, d.Detail)
			}
			if len(res.Checked) == 0 || !strings.Contains(res.Checked[0], "Flink:") {
				t.Errorf("Flink was not checked: %v / %v", res.Checked, res.NotChecked)
			}
		})
	}

	cases := []struct {
		name  string
		edits []edit
		want  string // file:line:col
		words string // in the detail
	}{
		{"unknown function in jobs/*.sql", []edit{
			{"jobs/device_window.sql", "AVG(temperature)", "AVERAGE(temperature)"}},
			"device_window.sql:8:3", "AVERAGE"},
		// The early-window mutant edits the same TUMBLE: it follows the job.
		{"bad window in jobs/*.sql", []edit{
			{"jobs/device_window.sql", "DESCRIPTOR(measured_at)", "DESCRIPTOR(device_id)"},
			{"experiments.hcl", "DESCRIPTOR(measured_at)", "DESCRIPTOR(device_id)"}},
			"device_window.sql:10:", "time attribute"},
		{"unknown function in a heredoc", []edit{
			{"jobs.hcl", "MAX(temperature) AS hottest", "MAX(TO_TIMESTAMP_LTZ(temperature, 3, 1)) AS hottest"}},
			"jobs.hcl:20:11", "TO_TIMESTAMP_LTZ"},
		{"output that does not fit the sink", []edit{
			{"jobs.hcl", "MAX(temperature) AS hottest", "CONCAT('x', CAST(MAX(temperature) AS STRING)) AS hottest"}},
			"jobs.hcl:20:56", "sink column 'hottest'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, copyLab(t, filepath.Join("..", "..", "labs", "sensors"), c.edits))
			res := s.check(t, gw)
			if len(res.Diags) != 1 {
				t.Fatalf("%d diagnostics, want 1: %v", len(res.Diags), res.Diags)
			}
			d := res.Diags[0]
			t.Logf("%s: %s\n%s", at(d), d.Summary, d.Detail)
			if got := at(d); !strings.HasPrefix(got, c.want) || !strings.Contains(d.Detail, c.words) {
				t.Errorf("at %s, want %s, with %q in the detail", got, c.want, c.words)
			}
		})
	}

	// labgen run checks lab.json's model, which keeps no source
	// positions: the diagnostic is at the rendered file that would run,
	// and names the lab's line.
	t.Run("lab.json", func(t *testing.T) {
		s := load(t, copyLab(t, filepath.Join("..", "..", "labs", "sensors"), []edit{
			{"jobs/device_window.sql", "AVG(temperature)", "AVERAGE(temperature)"}}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		res, err := enginecheck.Check(ctx, s.rendered.Lab, enginecheck.Options{Gateway: gw, Env: s.rendered.Env, RenderedDir: s.rendered.Dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diags) != 1 {
			t.Fatalf("%d diagnostics, want 1: %v", len(res.Diags), res.Diags)
		}
		d := res.Diags[0]
		b, _ := os.ReadFile(filepath.Join(s.rendered.Dir, "sql", "flink", "device_window.sql"))
		i := strings.Index(string(b), "AVERAGE(")
		want := fmt.Sprintf("device_window.sql:%d:3", 1+strings.Count(string(b[:i]), "\n"))
		if at(d) != want || !strings.HasPrefix(d.Subject.Filename, s.rendered.Dir) || !strings.Contains(d.Detail, "jobs/device_window.sql, line 8, column 3") {
			t.Errorf("at %s (%s), want %s of the rendered file:\n%s", at(d), d.Subject.Filename, want, d.Detail)
		}
		if _, ok := res.Files[d.Subject.Filename]; !ok {
			t.Errorf("the rendered file is not kept for the snippet")
		}
	})
}
