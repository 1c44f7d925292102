package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
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
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	dir, _ := renderLab(t, lab)
	l, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
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

// TestSmokeLakeNative: while a native stack runs, a lake check looks into
// OUT/.native/warehouse.
func TestSmokeLakeNative(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"status.json": `{"services": []}`, "control.json": `{}`} {
		p := filepath.Join(dir, labdir.NativeDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{opt: Options{Lab: &labdir.Lab{Dir: dir}}}
	c := schemas.SmokeCheck{Kind: schemas.SmokeLake, Dir: "iceberg/lab/wide/data", Pattern: "*.parquet"}
	if _, err := r.smokeLake(context.Background(), c); err == nil || !strings.Contains(err.Error(), "no *.parquet file under .native/warehouse/iceberg/lab/wide/data") {
		t.Errorf("empty warehouse: %v", err)
	}
	// Iceberg writes its data files into partition directories.
	file := filepath.Join(dir, labdir.WarehouseDir, "iceberg/lab/wide/data/day=1/00000-0.parquet")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	detail, err := r.smokeLake(context.Background(), c)
	if err != nil || detail != ".native/warehouse/iceberg/lab/wide/data/day=1/00000-0.parquet" {
		t.Errorf("smokeLake = %q, %v", detail, err)
	}
}
