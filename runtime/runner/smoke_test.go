package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// TestSmokeKinds: labgen smoke implements every kind of smoke check and
// no other (render's TestSmokeScriptKinds checks ./stream-lab smoke).
func TestSmokeKinds(t *testing.T) {
	for _, k := range schemas.SmokeKinds {
		if smokeGo[k] == nil {
			t.Errorf("labgen smoke does not implement smoke checks of kind %q", k)
		}
	}
	if len(smokeGo) != len(schemas.SmokeKinds) {
		t.Errorf("labgen smoke implements %d kinds, schemas.SmokeKinds lists %d", len(smokeGo), len(schemas.SmokeKinds))
	}
}

// TestSmokePlan: labgen smoke runs every smoke check of the seed lab, the
// producer's growing table and the lakes included, and checks the
// services by asking each engine.
func TestSmokePlan(t *testing.T) {
	l := renderedSeed(t)
	r, err := New(Options{Lab: l, Endpoints: l.Endpoints(nil), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.smokePlan() {
		names = append(names, c.name)
	}
	for _, c := range l.Lab.SmokeChecks() {
		if c.Kind != schemas.SmokeServices && !slices.Contains(names, c.Name) {
			t.Errorf("labgen smoke lacks the %s check %q; it runs %q", c.Kind, c.Name, names)
		}
	}
	for _, want := range []string{"MySQL answers", "ClickHouse answers", "Kafka answers", "Flink JobManager answers"} {
		if !slices.Contains(names, want) {
			t.Errorf("labgen smoke lacks %q", want)
		}
	}
}

// TestSmokeTextsMatchTheFace: a record's smoke checks speak of the face
// that ran: compose's job-submitter only on compose, never on the native
// stack or Kubernetes, which have no such service.
func TestSmokeTextsMatchTheFace(t *testing.T) {
	l := renderedSeed(t)
	for _, face := range []string{"compose", "native", "kubernetes"} {
		r, err := New(Options{Lab: l, Endpoints: l.Endpoints(nil), Version: "test", Stack: &record.Stack{Face: face}})
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, c := range r.smokePlan() {
			text.WriteString(c.name + "\n")
		}
		says := strings.Contains(text.String(), "job-submitter") || strings.Contains(text.String(), "stream-lab compose")
		if says != (face == "compose") {
			t.Errorf("%s: the smoke checks speak of compose's job-submitter: %v\n%s", face, says, text.String())
		}
	}
}

// renderedSeed is the seed lab rendered, as labgen run loads it.
func renderedSeed(t *testing.T) *labdir.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	dir, _ := renderLab(t, lab)
	l, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSmokeLakeAsksTheFace: a lake check asks the face's Services where
// the warehouse's files are (native.Client, compose.Compose), and says so
// when the face cannot tell.
func TestSmokeLakeAsksTheFace(t *testing.T) {
	c := schemas.SmokeCheck{Kind: schemas.SmokeLake, Dir: "iceberg/lab/wide/data", Pattern: "*.parquet"}
	r := &Runner{opt: Options{Lab: &labdir.Lab{Dir: t.TempDir()}}}
	if _, err := r.smokeLake(context.Background(), c); err == nil || !strings.Contains(err.Error(), "cannot look into its lake warehouse") {
		t.Errorf("no face: %v", err)
	}
	w := &fakeWarehouse{file: "x/00000-0.parquet"}
	r.opt.Compose = w
	detail, err := r.smokeLake(context.Background(), c)
	if err != nil || detail != w.file || w.asked != c.Dir+" "+c.Pattern {
		t.Errorf("smokeLake = %q, %v; asked %q", detail, err, w.asked)
	}
}

type fakeWarehouse struct{ file, asked string }

func (f *fakeWarehouse) Service(context.Context, string, string) (string, error) { return "", nil }
func (f *fakeWarehouse) Command(args ...string) string                           { return "" }
func (f *fakeWarehouse) WarehouseFile(_ context.Context, dir, pattern string) (string, error) {
	f.asked = dir + " " + pattern
	return f.file, nil
}
