package native

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

func TestInputs(t *testing.T) {
	base := Service{Name: "x", Argv: []string{"java", "-Xmx1g"}, Env: []string{"A=1", "B=2"},
		Files: map[string][]byte{"/s/conf/x/config.yaml": []byte("a: 1\n")}, Reads: map[string][]byte{"lab.json: producers": []byte(`{"rate":5}`)}}
	same := base
	same.Env = []string{"B=2", "A=1"} // the order of variables is no change
	if got := ChangedInputs(base.Inputs(), same.Inputs()); got != nil || base.Fingerprint() != same.Fingerprint() {
		t.Fatalf("same inputs differ: %v", got)
	}
	for _, c := range []struct {
		edit func(*Service)
		want []string
	}{
		{func(s *Service) { s.Argv = []string{"java", "-Xmx2g"} }, []string{"argv"}},
		{func(s *Service) { s.Env = []string{"A=1", "B=3"} }, []string{"env"}},
		{func(s *Service) { s.Files = map[string][]byte{"/s/conf/x/config.yaml": []byte("a: 2\n")} }, []string{"file /s/conf/x/config.yaml"}},
		{func(s *Service) {
			s.Files = map[string][]byte{"/s/conf/x/config.yaml": []byte("a: 1\n"), "/s/conf/x/log4j.properties": nil}
		}, []string{"file /s/conf/x/log4j.properties"}},
		{func(s *Service) { s.Files = nil }, []string{"file /s/conf/x/config.yaml"}},
		{func(s *Service) { s.Reads = map[string][]byte{"lab.json: producers": []byte(`{"rate":50}`)} }, []string{"lab.json: producers"}},
	} {
		s := base
		c.edit(&s)
		if got := ChangedInputs(base.Inputs(), s.Inputs()); !slices.Equal(got, c.want) || s.Fingerprint() == base.Fingerprint() {
			t.Errorf("changed %v, want %v", got, c.want)
		}
	}
	// A service that never started has no recorded inputs: all differ.
	if got := ChangedInputs(nil, base.Inputs()); len(got) != len(base.Inputs()) {
		t.Errorf("from nothing: %v", got)
	}
}

// A reload on real processes: the services whose inputs changed are
// restarted with their new definition (their new file on disk before they
// start), the others keep their process, and a new set of services is
// reported without restarting anything.
func TestSupervisorReload(t *testing.T) {
	lay, err := NewLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	up := Probe{Func: func(context.Context) error { return nil }}
	conf := filepath.Join(lay.Conf("b"), "b.conf")
	seen := filepath.Join(lay.Data("b"), "seen")
	plan := func(bConf, cRead string, extra bool) []Service {
		s := []Service{
			{Name: "a", Argv: []string{"sleep", "600"}, Health: up},
			// b reads its file at its start, as a JVM its config.
			{Name: "b", Argv: []string{"sh", "-c", "cat " + conf + " > seen; exec sleep 600"}, Needs: []string{"a"},
				Files: map[string][]byte{conf: []byte(bConf)},
				Health: Probe{Func: func(context.Context) error {
					b, err := os.ReadFile(seen)
					if err != nil || len(b) == 0 {
						return os.ErrNotExist
					}
					return nil
				}}},
			{Name: "c", Argv: []string{"sleep", "600"}, Reads: map[string][]byte{"lab.json: producers": []byte(cRead)}, Health: up},
		}
		if extra {
			s = append(s, Service{Name: "d", Argv: []string{"sleep", "600"}, Health: up})
		}
		return s
	}
	sup, err := NewSupervisor(lay, plan("one", "rate 5", false))
	if err != nil {
		t.Fatal(err)
	}
	var next []Service
	sup.Replan(func(context.Context) ([]Service, error) { return next, nil })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	defer func() {
		Down(ctx, lay, false)
		<-done
	}()
	st, err := WaitUp(ctx, lay, 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := func(st *Status, name string) int { s, _ := st.Service(name); return s.PID }
	c, err := Connect(lay)
	if err != nil {
		t.Fatal(err)
	}

	// Nothing changed: nothing restarts.
	next = plan("one", "rate 5", false)
	rl, err := c.Reload(ctx)
	if err != nil || len(rl.Restarted) != 0 {
		t.Fatalf("unchanged reload: %+v, %v", rl, err)
	}

	next = plan("two", "rate 50", false)
	os.Remove(seen)
	rl, err = c.Reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rl.Restarted {
		names = append(names, r.Name+": "+r.Changed)
		if r.Error != "" || r.Result == "" {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if want := []string{"b: .native/conf/b/b.conf", "c: lab.json: producers"}; !slices.Equal(names, want) {
		t.Fatalf("restarted %q, want %q", names, want)
	}
	st2, _ := lay.ReadStatus()
	if pid(st2, "a") != pid(st, "a") || pid(st2, "b") == pid(st, "b") || pid(st2, "c") == pid(st, "c") || !alive(pid(st2, "b")) {
		t.Fatalf("pids before %+v, after %+v", st.Services, st2.Services)
	}
	if b, _ := os.ReadFile(seen); string(b) != "two" {
		t.Fatalf("b read %q at its restart, want its new file", b)
	}
	for _, s := range plan("two", "rate 50", false) {
		if got, _ := st2.Service(s.Name); got.Fingerprint != s.Fingerprint() || got.State != StateHealthy {
			t.Errorf("%s: status %+v, want fingerprint %s", s.Name, got, s.Fingerprint())
		}
	}

	// Another set of services: reported, nothing restarted.
	next = plan("three", "rate 50", true)
	rl, err = c.Reload(ctx)
	if err != nil || !slices.Equal(rl.Added, []string{"d"}) || len(rl.Removed) != 0 || len(rl.Restarted) != 0 {
		t.Fatalf("new set: %+v, %v", rl, err)
	}
	next = plan("three", "rate 50", false)[:2]
	if rl, err = c.Reload(ctx); err != nil || !slices.Equal(rl.Removed, []string{"c"}) || len(rl.Restarted) != 0 {
		t.Fatalf("smaller set: %+v, %v", rl, err)
	}
	if st3, _ := lay.ReadStatus(); pid(st3, "b") != pid(st2, "b") {
		t.Fatalf("b restarted although the set differs")
	}
}

// The seed lab's real plan: planned twice from the same render, every
// service has the same inputs (else a reload would restart it for
// nothing); rendered again with another payment delay, only the
// producer's differ; with another checkpoint interval, only the Flink
// services' (their config.yaml); with two TaskManagers, the set of
// services differs.
func TestReplanOfAVariant(t *testing.T) {
	needJVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := t.TempDir()
	// A copy of the seed lab, whose Flink settings the test edits.
	src := filepath.Join(t.TempDir(), "orders")
	if err := os.CopyFS(src, os.DirFS("../../labs/orders")); err != nil {
		t.Fatal(err)
	}
	plan := func(vars ...schemas.VarArg) map[string]map[string]string {
		t.Helper()
		l, diags := schemas.NewParser().Load(src, schemas.Options{Vars: vars})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		files, err := render.Render(l, render.Options{NoSource: true, LabgenVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := render.Write(dir, files); err != nil {
			t.Fatal(err)
		}
		lab, err := labdir.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(ctx, lab, Labgen{Path: "labgen"}, func(s string) { t.Log(s) })
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]string{}
		for _, s := range p.Services {
			out[s.Name] = s.Inputs()
		}
		return out
	}
	changed := func(a, b map[string]map[string]string) []string {
		var out []string
		for name, in := range b {
			if a[name] == nil {
				out = append(out, name+" added")
			} else if c := ChangedInputs(a[name], in); len(c) > 0 {
				out = append(out, name+": "+strings.Join(c, ", "))
			}
		}
		slices.Sort(out)
		return out
	}
	first := plan()
	if got := changed(first, plan()); len(got) > 0 {
		t.Fatalf("the same render planned twice differs: %q", got)
	}
	if got, want := changed(first, plan(schemas.VarArg{Name: "payment_delay", Value: "5s"})), []string{"producer: lab.json: producers, tables, source database"}; !slices.Equal(got, want) {
		t.Errorf("payment_delay=5s changes %q, want %q", got, want)
	}
	stack := filepath.Join(src, "stack.hcl")
	b, err := os.ReadFile(stack)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `checkpoint_interval = "10s"`, `checkpoint_interval = "15s"`, 1)
	if edited == string(b) {
		t.Fatal("the seed lab's stack.hcl has no checkpoint_interval = \"10s\" to edit")
	}
	if err := os.WriteFile(stack, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var flink []string
	for _, c := range changed(first, plan()) {
		name, _, _ := strings.Cut(c, ":")
		flink = append(flink, name)
	}
	if want := []string{"jobmanager", "sql-gateway", "taskmanager"}; !slices.Equal(flink, want) {
		t.Errorf("a checkpoint interval changes %q, want %q", flink, want)
	}
	if err := os.WriteFile(stack, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := changed(first, plan(schemas.VarArg{Name: "taskmanagers", Value: "2"})); !slices.Contains(got, "taskmanager-2 added") {
		t.Errorf("taskmanagers=2 changes %q, want taskmanager-2 added", got)
	}
}
