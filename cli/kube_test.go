package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/labgen/labgen/runtime/kube"
	"github.com/labgen/labgen/runtime/kube/kubetest"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// render --target kubernetes writes the base beside the compose lab, with
// the broker count asked for; wrong targets and flags are usage errors.
func TestRenderKubernetes(t *testing.T) {
	seed := filepath.Join("..", "labs", "orders")
	out := t.TempDir()
	code, stdout, stderr := run(t, out, nil, "render", seed, "-o", out, "--target", "kubernetes", "-brokers", "3")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, p := range []string{"compose.yaml", "kubernetes/kustomization.yaml", "kubernetes/flink.yaml", "kubernetes/README.md"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("render --target kubernetes did not write %s", p)
		}
	}
	kafka, _ := os.ReadFile(filepath.Join(out, "kubernetes", "kafka.yaml"))
	if !strings.Contains(string(kafka), "  replicas: 3\n") {
		t.Errorf("-brokers 3: kafka.yaml has no node pool of three:\n%s", kafka)
	}
	// A plain render again removes the base (the lock listed it).
	if code, _, stderr := run(t, out, nil, "render", seed, "-o", out); code != ExitOK {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "kubernetes", "kustomization.yaml")); err == nil {
		t.Error("a render without --target kubernetes left the old base behind")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "nomad"}, `--target is compose or kubernetes, not "nomad"`},
		{[]string{"--target", "kubernetes", "-brokers", "0"}, "-brokers must be at least 1"},
	} {
		code, _, stderr := run(t, out, nil, append([]string{"render", seed, "-o", out}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("render %v: exit %d, %q; want a usage error %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := run(t, out, nil, "up", out, "--dry-run"); code != ExitUsage || !strings.Contains(stderr, "--dry-run goes with --kubernetes") {
		t.Errorf("up --dry-run without --kubernetes: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, out, nil, "up", out, "--kubernetes"); code != ExitUsage || !strings.Contains(stderr, "has no Kubernetes base") {
		t.Errorf("up --kubernetes without a base: exit %d, %q", code, stderr)
	}
}

// TestMain lets the test binary play kubectl port-forward (kubetest):
// the tests have no cluster with kubelets.
func TestMain(m *testing.M) { kubetest.Main(m) }

// kubeRunLab renders the seed lab with its Kubernetes base (two
// brokers, advertising free local ports), whose lab.json has one
// experiment of notes, so that a run takes no time.
func kubeRunLab(t *testing.T) (out string, brokerPorts []int) {
	t.Helper()
	out = t.TempDir()
	if code, stdout, stderr := run(t, out, nil, "render", filepath.Join("..", "labs", "orders"), "-o", out, "--target", "kubernetes", "-brokers", "2"); code != ExitOK {
		t.Fatalf("render: exit %d\n%s%s", code, stdout, stderr)
	}
	p := filepath.Join(out, "kubernetes", "kafka.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	for _, rendered := range []string{"advertisedPort: 19094\n", "advertisedPort: 19095\n"} {
		if !strings.Contains(y, rendered) {
			t.Fatalf("kafka.yaml has no %q:\n%s", rendered, y)
		}
		port, _ := strconv.Atoi(strings.TrimPrefix(closedPort(t), "127.0.0.1:"))
		brokerPorts = append(brokerPorts, port)
		y = strings.Replace(y, rendered, fmt.Sprintf("advertisedPort: %d\n", port), 1)
	}
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	lab.Experiments = notesLab().Experiments[:1]
	j, err := schemas.MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "lab.json"), j, 0o644); err != nil {
		t.Fatal(err)
	}
	return out, brokerPorts
}

// run --kubernetes opens a port-forward per service it reaches and no
// endpoint flag names, points the run at them, and closes them all when
// the run ends.
func TestRunKubernetesForwards(t *testing.T) {
	bin, started := kubetest.StandIn(t)
	out, brokers := kubeRunLab(t)
	code, stdout, stderr := run(t, out, nil, "run", out, "--kubernetes", "--no-up", "--no-check", "--kubectl", bin, "--postgres", "127.0.0.1:1", "--mysql", closedPort(t))
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	kubetest.AwaitGone(t, started)

	var args []string
	for _, a := range kubetest.Started(t, started) {
		args = append(args, a)
	}
	sort.Strings(args)
	local := map[string]string{}
	var targets []string
	for _, a := range args {
		f := strings.Fields(a) // port-forward -n NS TARGET LOCAL:PORT --address 127.0.0.1
		if len(f) != 7 || f[0] != "port-forward" || f[2] != "labgen-orders" || f[6] != "127.0.0.1" {
			t.Fatalf("kubectl %s", a)
		}
		l, p, _ := strings.Cut(f[4], ":")
		targets = append(targets, f[3]+" "+p)
		local[f[3]] = l
	}
	sort.Strings(targets)
	want := []string{"pod/kafka-dual-role-0 9094", "pod/kafka-dual-role-1 9094", "svc/clickhouse 9000", "svc/job-order-wide-rest 8081", "svc/sql-gateway 8083"}
	if strings.Join(targets, ", ") != strings.Join(want, ", ") {
		t.Errorf("port-forwards:\n  %s\nwant\n  %s", strings.Join(targets, "\n  "), strings.Join(want, "\n  "))
	}
	if local["pod/kafka-dual-role-0"] != strconv.Itoa(brokers[0]) || local["pod/kafka-dual-role-1"] != strconv.Itoa(brokers[1]) {
		t.Errorf("the brokers are forwarded from %s and %s, not the ports they advertise, %v", local["pod/kafka-dual-role-0"], local["pod/kafka-dual-role-1"], brokers)
	}
	for _, w := range []string{"MySQL: the endpoint flag's", "Port-forwards into namespace labgen-orders", "  svc/clickhouse 9000 → 127.0.0.1:" + local["svc/clickhouse"] + " (ClickHouse) …", "answers at 127.0.0.1:" + local["svc/sql-gateway"]} {
		if !strings.Contains(stderr, w) {
			t.Errorf("run's progress lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "PostgreSQL") {
		t.Errorf("a PostgreSQL forward in the MySQL lab:\n%s", stderr)
	}

	// The record names the forwarded endpoints.
	recs, _ := filepath.Glob(filepath.Join(out, "records", "*", "record.json"))
	if len(recs) != 1 {
		t.Fatalf("records: %v", recs)
	}
	rec, err := record.Read(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	eps := fmt.Sprint(rec.Endpoints)
	for _, w := range []string{"127.0.0.1:" + local["svc/clickhouse"], "http://127.0.0.1:" + local["svc/job-order-wide-rest"], "http://127.0.0.1:" + local["svc/sql-gateway"], fmt.Sprintf("127.0.0.1:%d", brokers[0])} {
		if !strings.Contains(eps, w) {
			t.Errorf("the record's endpoints lack %s: %s", w, eps)
		}
	}
}

// An interrupted run (Ctrl-C) and a forward that does not come up
// leave no kubectl behind.
func TestRunKubernetesForwardsClosed(t *testing.T) {
	bin, started := kubetest.StandIn(t)
	out, _ := kubeRunLab(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	stderr := &triggerWriter{on: "Record: ", do: cancel}
	env := &Env{Stdout: &stdout, Stderr: stderr, Stdin: strings.NewReader("")}
	code := RunEnv(ctx, []string{"run", out, "--kubernetes", "--no-up", "--no-check", "--kubectl", bin}, env)
	if code != ExitRunFailed || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("interrupted run: exit %d\n%s", code, stderr.String())
	}
	if n := len(kubetest.Started(t, started)); n != 6 {
		t.Errorf("%d port-forwards started, want 6", n)
	}
	kubetest.AwaitGone(t, started)

	// The streaming job's cluster is missing: its REST Service cannot be
	// forwarded to, and the forwards started before it are closed.
	p := filepath.Join(out, "kubernetes", "flink.yaml")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.ReplaceAll(b, []byte("name: job-order-wide\n"), []byte("name: job-missing\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, out, nil, "run", out, "--kubernetes", "--no-up", "--no-check", "--kubectl", bin)
	if code != ExitRunFailed || !strings.Contains(errOut, `Flink REST of job-missing: kubectl port-forward -n labgen-orders svc/job-missing-rest`) || !strings.Contains(errOut, `services "job-missing-rest" not found`) {
		t.Errorf("a missing Service: exit %d\n%s", code, errOut)
	}
	kubetest.AwaitGone(t, started)
}

// triggerWriter is a buffer that calls do once it has been written on.
type triggerWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	on   string
	do   func()
	done bool
}

func (w *triggerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.on) {
		w.done = true
		w.do()
	}
	return len(p), nil
}

func (w *triggerWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// run --kubernetes refuses --controls (undoing one submits jobs), and a
// lab directory with a Kubernetes base and no stack running is not run
// without --kubernetes: that would submit the operator's jobs again.
func TestRunKubernetesRefusals(t *testing.T) {
	out, _ := kubeRunLab(t)
	code, _, stderr := run(t, out, nil, "run", out, "--kubernetes", "--no-up", "--controls")
	if code != ExitUsage || !strings.Contains(stderr, "--controls does not go with --kubernetes") {
		t.Errorf("--kubernetes --controls: exit %d, %q", code, stderr)
	}
	for _, c := range [][]string{{"--kubernetes", "--native"}, {"--kubectl", "/bin/true"}} {
		code, _, stderr := run(t, out, nil, append([]string{"run", out, "--no-up"}, c...)...)
		if code != ExitUsage || !strings.Contains(stderr, c[0]) {
			t.Errorf("run %v: exit %d, %q", c, code, stderr)
		}
	}
	dockerStandIn(t, "noengine")
	code, _, stderr = run(t, out, nil, "run", out, "--no-up", "--no-check")
	if code != ExitUsage || !strings.Contains(stderr, "has a Kubernetes base and no compose or native stack runs for it: run it with labgen run DIR --kubernetes --no-up") {
		t.Errorf("--no-up without --kubernetes: exit %d, %q", code, stderr)
	}
}

// The Flink cluster a run reads is the one most of its steps need.
func TestKubeFlinkCluster(t *testing.T) {
	fc := kube.FlinkClusters{Session: "flink", Jobs: map[string]string{"a": "job-a", "b": "job-b"}, WithJob: []string{"job-a", "job-b", "tiering"}}
	step := func(name string, s schemas.Step) *schemas.Step { s.Name = name; return &s }
	flink := func(job string) schemas.Step {
		return schemas.Step{Kind: schemas.StepFlink, Flink: &schemas.FlinkStep{Job: job}}
	}
	lab := func(action string) schemas.Step {
		return schemas.Step{Kind: schemas.StepLab, Lab: &schemas.LabStep{Action: action}}
	}
	for _, c := range []struct {
		steps []*schemas.Step
		want  string
		notes int
	}{
		{nil, "job-a", 0},
		{[]*schemas.Step{step("f", flink("b"))}, "job-b", 0},
		{[]*schemas.Step{step("batch", lab("batch")), step("f", flink("batch_job"))}, "flink", 0},
		{[]*schemas.Step{step("f", flink("b")), step("g", flink("b")), step("batch", lab("batch"))}, "job-b", 1},
		{[]*schemas.Step{step("smoke", lab("smoke"))}, "job-a", 2},
	} {
		got, notes := kubeFlinkCluster(fc, []*schemas.Experiment{{Name: "e", Steps: c.steps}})
		if got != c.want || len(notes) != c.notes {
			t.Errorf("steps %v: %s, %q; want %s and %d note(s)", c.steps, got, notes, c.want, c.notes)
		}
	}
}
