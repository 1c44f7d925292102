package schemas

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// definitionLab has a measure, lag, that reads a wait re-running a query
// whose SQL uses a capture of an earlier experiment and a variable, and a
// preset read by another measure; beside them, what must not count.
const definitionLab = `
lab "definitions" {
  title = "Definitions"
}

variable "threshold" {
  type    = number
  default = 5
}

stack {
  mysql {}
}

preset "counts" {
  engine = "mysql"
  title  = "Counts"
  sql    = "SELECT COUNT(*) AS n FROM dual"
}

experiment "first" {
  number = 1
  title  = "First"

  step "pick" {
    engine = "mysql"
    sql    = "SELECT 1 AS id"
    capture = {
      id = result.rows[0].id
    }
  }
}

experiment "lag" {
  number = 2
  title  = "Lag"

  step "served" {
    title  = "Served"
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM dual WHERE ${experiment.first.pick.id} = 1 AND ${var.threshold} > 0"
  }

  step "caught_up" {
    title = "Wait until it is served"
    text  = "The last sample's time is the lag."
    wait = {
      rerun    = step.served
      until    = result.rows[0].n >= 1
      interval = "1s"
      timeout  = "30s"
    }
    capture = {
      took_ms = samples[length(samples) - 1].ms
      other   = result.rows[0].n + 1
    }

    expect {
      condition = samples[length(samples) - 1].ms <= 30000
      message   = "Served within 30 s."
    }
  }

  step "unrelated" {
    engine = "mysql"
    sql    = "SELECT 2 AS x"
    capture = {
      x = result.rows[0].x
    }
  }

  step "counted" {
    query = preset.counts
    capture = {
      n = result.rows[0].n
    }
  }

  measure "lag" {
    title      = "Served after"
    value      = step.caught_up.took_ms / 1000
    unit       = "s"
    samples    = 1
    resolution = "1s"
  }

  measure "count" {
    title = "Counted"
    value = step.counted.n
  }
}
`

// definitionsOf loads src as a lab and returns its measures' definitions
// by name.
func definitionsOf(t *testing.T, src string, opts Options) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := NewParser().Load(dir, opts)
	if diags.HasErrors() {
		t.Fatalf("the lab has errors: %s", diags.Error())
	}
	out := map[string]string{}
	for _, e := range lab.Experiments {
		for _, m := range e.Measures {
			out[m.Name] = m.Definition
		}
	}
	return out
}

// A measure's definition is stable, follows what decides its value (the
// expression, the unit, the steps it reads and what they read, the
// variables they use) and ignores the rest.
func TestMeasureDefinition(t *testing.T) {
	base := definitionsOf(t, definitionLab, Options{})
	// A change of the hash for a lab that did not change would make every
	// record of it incomparable with the ones before: it is pinned.
	const wantLag, wantCount = "sha256:f0c1e7520f34", "sha256:ea1a6ff91035"
	if base["lag"] != wantLag || base["count"] != wantCount {
		t.Errorf("definitions: lag %s, count %s; want %s and %s (the hash of an unchanged lab must not change)", base["lag"], base["count"], wantLag, wantCount)
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{12}$`).MatchString(base["lag"]) {
		t.Fatalf("definition %q is not sha256: and 12 hex digits", base["lag"])
	}
	if base["lag"] == base["count"] {
		t.Fatal("two different measures have one definition")
	}
	cases := []struct {
		name, old, new string
		vars           Options
		changes        bool
	}{
		// What does not decide the value.
		{name: "the measure's title", old: `title      = "Served after"`, new: `title      = "Served by ClickHouse after"`},
		{name: "spacing and a comment", old: `value      = step.caught_up.took_ms / 1000`, new: "value      = step.caught_up.took_ms/1000 # seconds"},
		{name: "samples and resolution", old: "samples    = 1\n    resolution = \"1s\"", new: "samples    = 2\n    window     = \"30s\""},
		{name: "a read step's title and text", old: `title = "Wait until it is served"`, new: `title = "Wait"`},
		{name: "a read step's expectation", old: `message   = "Served within 30 s."`, new: `message   = "Served in time."`},
		{name: "a wait's timeout", old: `timeout  = "30s"`, new: `timeout  = "45s"`},
		{name: "a capture of a read step that is not read", old: `other   = result.rows[0].n + 1`, new: `other   = result.rows[0].n + 2`},
		{name: "a step the value does not read", old: `sql    = "SELECT 2 AS x"`, new: `sql    = "SELECT 3 AS x"`},
		{name: "a re-read step's title", old: `title  = "Served"`, new: `title  = "Served rows"`},
		// What does.
		{name: "the expression", old: `value      = step.caught_up.took_ms / 1000`, new: `value      = step.caught_up.took_ms / 100`, changes: true},
		{name: "the unit", old: `unit       = "s"`, new: `unit       = "ms"`, changes: true},
		{name: "the read capture", old: `took_ms = samples[length(samples) - 1].ms`, new: `took_ms = samples[0].ms`, changes: true},
		{name: "the wait's condition", old: `until    = result.rows[0].n >= 1`, new: `until    = result.rows[0].n >= 2`, changes: true},
		{name: "the wait's interval", old: `interval = "1s"`, new: `interval = "5s"`, changes: true},
		{name: "the SQL of the step the wait re-runs", old: `WHERE ${experiment.first.pick.id} = 1`, new: `WHERE ${experiment.first.pick.id} = 2`, changes: true},
		{name: "the SQL of an earlier experiment's step it reads through", old: `sql    = "SELECT 1 AS id"`, new: `sql    = "SELECT 2 AS id"`, changes: true},
		{name: "a variable the SQL uses", vars: vars("threshold=6"), changes: true},
	}
	for _, c := range cases {
		src := definitionLab
		if c.old != "" {
			if !strings.Contains(src, c.old) {
				t.Fatalf("%s: the lab has no %q", c.name, c.old)
			}
			src = strings.Replace(src, c.old, c.new, 1)
		}
		got := definitionsOf(t, src, c.vars)
		if changed := got["lag"] != base["lag"]; changed != c.changes {
			t.Errorf("%s: definition %s, before %s; want it changed: %v", c.name, got["lag"], base["lag"], c.changes)
		}
		if got["count"] != base["count"] {
			t.Errorf("%s: the other measure's definition changed (%s → %s)", c.name, base["count"], got["count"])
		}
	}
	// The preset's SQL decides the value of the measure that reads it.
	src := strings.Replace(definitionLab, `sql    = "SELECT COUNT(*) AS n FROM dual"`, `sql    = "SELECT COUNT(*) + 1 AS n FROM dual"`, 1)
	if got := definitionsOf(t, src, Options{}); got["count"] == base["count"] || got["lag"] != base["lag"] {
		t.Errorf("a preset's SQL changed: count %s → %s, lag %s → %s; want count's alone changed", base["count"], got["count"], base["lag"], got["lag"])
	}
}

// The definition is in lab.json, and computed from what lab.json keeps:
// the lab read back gives the same one.
func TestMeasureDefinitionInLabJSON(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(definitionLab), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := NewParser().Load(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b, err := MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	want := lab.Experiment("lag").Measures[0].Definition
	if !strings.Contains(string(b), `"definition": "`+want+`"`) {
		t.Fatalf("lab.json lacks the definition %s", want)
	}
	path := filepath.Join(dir, "lab.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLabJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	e := back.Experiment("lag")
	if got := back.MeasureDefinition(e, e.Measures[0]); got != want || e.Measures[0].Definition != want {
		t.Errorf("read back from lab.json: computed %s, kept %s; loaded %s", got, e.Measures[0].Definition, want)
	}
	m := e.Measures[0]
	if m.Samples == nil || m.Samples.Text != "1" || m.Resolution == nil || m.Resolution.Text != "1s" || m.Window != nil {
		t.Errorf("samples %+v, window %+v, resolution %+v: want 1, none and 1s", m.Samples, m.Window, m.Resolution)
	}
}
