package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/schemas"
)

// A passed check is remembered for the running stack and the rendered lab
// it checked, and forgotten when either changes.
func TestCheckMemo(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	labJSON := `{"name":"x","jobs":[{"name":"j"}],"producers":[{"rate":5}],"variables":{"order_rate":5},` +
		`"experiments":[{"name":"one","steps":[{"name":"s","query":{"sql":"SELECT 1"},"compare":{"declared":"exponential(45)"}}]}]}`
	lock := "[labgen]\nversion  1\n\n[files]\naaaa  compose.yaml\nbbbb  lab.json\ncccc  sql/flink/j.sql\n"
	write("lab.json", labJSON)
	write("labgen.lock", lock)
	lab := &schemas.Lab{Experiments: []*schemas.Experiment{{Name: "one"}, {Name: "two"}}}
	ep := &endpointFlags{}

	if _, _, ok := checkKey(dir, lab, ep); ok {
		t.Fatal("a memo without a running stack")
	}
	lay, _ := native.NewLayout(dir)
	stack := func() (stop func()) {
		sup, err := native.NewSupervisor(lay, []native.Service{{Name: "s", Argv: []string{"sleep", "600"}, Health: native.Probe{Func: func(context.Context) error { return nil }}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- sup.Run(ctx) }()
		if _, err := native.WaitUp(ctx, lay, 30*time.Second, nil); err != nil {
			t.Fatal(err)
		}
		return func() { cancel(); <-done }
	}
	stop := stack()
	key, _, ok := checkKey(dir, lab, ep)
	if !ok {
		t.Fatal("no memo on a running stack")
	}
	if _, ok := checkPassed(lay, key); ok {
		t.Fatal("passed before any check")
	}
	rememberCheck(lay, key)
	if _, ok := checkPassed(lay, key); !ok {
		t.Fatal("a passed check is not remembered")
	}
	changed := func(what string, change, undo func()) {
		t.Helper()
		change()
		if k, _, _ := checkKey(dir, lab, ep); k == key {
			t.Errorf("the key ignores %s", what)
		}
		undo()
		if k, _, _ := checkKey(dir, lab, ep); k != key {
			t.Errorf("the key changed after %s was undone", what)
		}
	}
	changed("another labgen", func() { write("labgen.lock", strings.Replace(lock, "version  1", "version  2", 1)) }, func() { write("labgen.lock", lock) })
	changed("a job's SQL", func() { write("labgen.lock", strings.Replace(lock, "cccc", "dddd", 1)) }, func() { write("labgen.lock", lock) })
	changed("the jobs", func() { write("lab.json", strings.Replace(labJSON, `"j"`, `"k"`, 1)) }, func() { write("lab.json", labJSON) })
	// A variant of the producer alone is not checked again.
	same := func(what string, change func()) {
		t.Helper()
		change()
		if k, _, _ := checkKey(dir, lab, ep); k != key {
			t.Errorf("the key depends on %s, which the check does not read", what)
		}
		write("lab.json", labJSON)
		write("labgen.lock", lock)
	}
	changed("a step's SQL", func() { write("lab.json", strings.Replace(labJSON, "SELECT 1", "SELECT 2", 1)) }, func() { write("lab.json", labJSON) })
	same("the producer's rate and delay", func() {
		write("lab.json", strings.NewReplacer(`"rate":5`, `"rate":500`, `"order_rate":5`, `"order_rate":500`, "exponential(45)", "exponential(5)").Replace(labJSON))
		write("labgen.lock", strings.NewReplacer("aaaa", "eeee", "bbbb", "ffff").Replace(lock))
	})
	changed("the experiments", func() { lab.Experiments = lab.Experiments[:1] }, func() { lab.Experiments = append(lab.Experiments, &schemas.Experiment{Name: "two"}) })
	changed("an endpoint", func() { ep.mysql = "127.0.0.1:3307" }, func() { ep.mysql = "" })
	stop()
	stop = stack() // the stack started again
	defer stop()
	if k, _, _ := checkKey(dir, lab, ep); k == key {
		t.Error("the key ignores a stack started again")
	}
}

// A run's record names the services that exited on their own since it
// began, and whether the supervisor brought them back.
func TestStackExits(t *testing.T) {
	dir := t.TempDir()
	lay, _ := native.NewLayout(dir)
	if err := os.MkdirAll(lay.State, 0o755); err != nil {
		t.Fatal(err)
	}
	began := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
	st := `{"pid": 1, "started": "2026-12-01T18:00:00Z", "services": [
		{"name": "kafka", "state": "healthy", "since": "2026-12-01T19:05:02Z", "log": "x", "restarts": 1, "last_exit": "2026-12-01T19:05:00Z: signal: killed"},
		{"name": "mysql", "state": "exited", "since": "2026-12-01T19:06:00Z", "log": "x", "last_exit": "2026-12-01T19:06:00Z: exit status 1"},
		{"name": "flink", "state": "healthy", "since": "2026-12-01T18:10:00Z", "log": "x", "restarts": 1, "last_exit": "2026-12-01T18:09:00Z: signal: killed"}]}`
	if err := os.WriteFile(filepath.Join(lay.State, "status.json"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	got := stackExits(dir, true)(began)
	want := []string{
		"kafka at 2026-12-01T19:05:00Z (signal: killed); the supervisor started it again (restart 1 of this stack)",
		"mysql at 2026-12-01T19:06:00Z (exit status 1); now exited",
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("exits\n got %q\nwant %q", got, want)
	}
	if stackExits(dir, false) != nil {
		t.Error("exits asked of a stack that is not native")
	}
}

// On the seed lab as rendered: a variant of the producer (its delay, which
// experiment 03's compare step copies) reads the same to the check, a
// variant of the jobs' settings does not.
func TestCheckedRenderOfVariants(t *testing.T) {
	render := func(vars ...string) []byte {
		t.Helper()
		out := t.TempDir()
		args := []string{"render", "../labs/orders", "-o", out}
		for _, v := range vars {
			args = append(args, "-var", v)
		}
		if code, o, e := run(t, "", nil, args...); code != ExitOK {
			t.Fatalf("render %v: %d\n%s%s", vars, code, o, e)
		}
		b, err := checkedRender(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	base := render()
	if !bytes.Equal(base, render("payment_delay=5s", "payment_delay_max=30s", "order_rate=50")) {
		t.Error("a variant of the producer alone would be checked again")
	}
	if bytes.Equal(base, render("state_backend=rocksdb")) {
		t.Error("a variant of Flink's settings would not be checked again")
	}
}
