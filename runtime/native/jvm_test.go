package native

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testkafka"
	"github.com/labgen/labgen/internal/testproc"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/schemas"
)

// yamlKeys reads flat "key: value" lines, for the tests only.
func yamlKeys(t *testing.T, b []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("not a flat key: %q", line)
		}
		if _, dup := m[k]; dup {
			t.Errorf("%s twice", k)
		}
		m[k] = v
	}
	return m
}

// checkFace holds a face's configuration to the one source: each key of
// source is in got with source's value or the face's named override, and
// each override names a key of source unless added says it is the
// face's own.
func checkFace(t *testing.T, what string, source, over render.Settings, added map[string]bool, got map[string]string) {
	t.Helper()
	want := source.Map()
	for _, o := range over {
		if _, ok := want[o.Key]; !ok && !added[o.Key] {
			t.Errorf("%s: override %s names no key of the source (renamed there?)", what, o.Key)
		}
		want[o.Key] = o.Text()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s is %q, want %q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is in no source and no override", what, k)
		}
	}
}

func TestFlinkConfig(t *testing.T) {
	l := seedLab(t)
	lay := Layout{Lab: "/lab", State: "/lab/.native"}
	p := Ports{FlinkREST: 18081, Gateway: 18083, FlinkRPC: 16123, FlinkBlob: 16124}
	conf := FlinkConfig(l, lay, p)
	got := yamlKeys(t, flinkYAML(conf))
	checkFace(t, "native Flink", render.FlinkSettings(l), flinkOverrides(lay, p), flinkAdded, got)
	for k, v := range map[string]string{
		"jobmanager.rpc.address":                "127.0.0.1",
		"jobmanager.bind-host":                  "127.0.0.1",
		"rest.port":                             "18081",
		"execution.checkpointing.dir":           "file:///lab/.native/checkpoints",
		"execution.checkpointing.savepoint-dir": "file:///lab/.native/checkpoints/savepoints",
		"sql-gateway.endpoint.rest.port":        "18083",
		"blob.server.port":                      "16124",
		"taskmanager.host":                      "127.0.0.1",
		"env.java.opts.all":                     strings.Join(render.FlinkJava17Opts, " "),
	} {
		if got[k] != v {
			t.Errorf("%s is %q, want %q", k, got[k], v)
		}
	}
	for k, v := range got {
		if v == "jobmanager" || v == "0.0.0.0" || strings.Contains(v, "file:///checkpoints") {
			t.Errorf("a container value survived: %s: %s", k, v)
		}
	}
	jm, tm := l.Stack.FlinkMemory()
	if m := flinkValue(conf, "jobmanager.memory.process.size"); m != fmt.Sprintf("%dm", jm) {
		t.Errorf("the JobManager's memory is %q, want %dm", m, jm)
	}
	if m := flinkValue(conf, "taskmanager.memory.process.size"); m != fmt.Sprintf("%dm", tm) {
		t.Errorf("the TaskManager's memory is %q, want %dm", m, tm)
	}
}

// TestSettingsFromLabJSON: the native stack computes the settings from
// the lab it loads from the lab directory (lab.json); they must be the
// ones compose rendered from the HCL, or the faces drift apart.
func TestSettingsFromLabJSON(t *testing.T) {
	lab := renderedOrders(t)
	rendered, err := os.ReadFile(filepath.Join(lab.Dir, "flink", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := render.FlinkSettings(lab.Lab).YAML(); !strings.HasSuffix(string(rendered), string(want)) {
		t.Errorf("flink/config.yaml is not the settings of the loaded lab:\n%s\nwant\n%s", rendered, want)
	}
	compose, err := os.ReadFile(filepath.Join(lab.Dir, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range render.KafkaSettings(lab.Lab) {
		if !strings.Contains(string(compose), fmt.Sprintf("%s: %s", kafkaEnv(x.Key), x.Text())) &&
			!strings.Contains(string(compose), fmt.Sprintf("%s: \"%s\"", kafkaEnv(x.Key), x.Text())) {
			t.Errorf("compose.yaml lacks %s=%v of the loaded lab", x.Key, x.Value)
		}
	}
}

func kafkaEnv(key string) string {
	return "KAFKA_" + strings.ToUpper(strings.NewReplacer("_", "__", "-", "___", ".", "_").Replace(key))
}

// TestFlussServerYAML holds each native Fluss server's server.yaml to
// compose's FLUSS_PROPERTIES (render.FlussSettings).
func TestFlussServerYAML(t *testing.T) {
	l := seedLab(t)
	if l.Stack.Fluss == nil {
		t.Fatal("labs/orders has no Fluss")
	}
	lay := Layout{Lab: "/lab", State: "/lab/.native"}
	p := Ports{ZooKeeper: 12181, FlussCoordinator: 19123, FlussTablet: 19124}
	for _, tablet := range []bool{false, true} {
		name := "coordinator-server"
		if tablet {
			name = "tablet-server"
		}
		got := yamlKeys(t, FlussServerYAML(l, lay, p, tablet))
		checkFace(t, "native "+name, render.FlussSettings(l, name), flussOverrides(l, lay, p, tablet), nil, got)
		if want := fmt.Sprintf("FLUSS://127.0.0.1:%d", map[bool]int{false: 19123, true: 19124}[tablet]); got["bind.listeners"] != want {
			t.Errorf("%s listens on %q, want %q", name, got["bind.listeners"], want)
		}
		if got["datalake.paimon.warehouse"] != "/lab/.native/warehouse/paimon" {
			t.Errorf("%s: the Paimon warehouse is %q", name, got["datalake.paimon.warehouse"])
		}
	}
}

// TestKafkaProperties holds the native broker's server.properties to
// compose's broker properties (render.KafkaSettings).
func TestKafkaProperties(t *testing.T) {
	l := seedLab(t)
	lay := Layout{Lab: "/lab", State: "/lab/.native"}
	p := Ports{Kafka: 19092, KafkaController: 19093}
	got := map[string]string{}
	for _, line := range strings.Split(string(KafkaProperties(l, lay, p)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("not a property: %q", line)
		}
		got[k] = v
	}
	checkFace(t, "native Kafka", render.KafkaSettings(l), kafkaOverrides(lay, p), nil, got)
	for k, v := range got {
		if strings.Contains(v, "INTERNAL") || strings.Contains(v, "0.0.0.0") || strings.Contains(v, "kafka:") {
			t.Errorf("a container value survived: %s=%s", k, v)
		}
	}
	if got["listeners"] != "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093" {
		t.Errorf("listeners=%s", got["listeners"])
	}
}

// TestNativeStack starts the JVM services of labs/orders as the supervisor
// would (a tiny starter here) and runs a query and the tiering job. It
// takes a few minutes: only with LABGEN_NATIVE_TEST=1.
func TestNativeStack(t *testing.T) {
	if os.Getenv("LABGEN_NATIVE_TEST") != "1" {
		t.Skip("set LABGEN_NATIVE_TEST=1 to start the native JVM stack (several minutes, ~3 GB)")
	}
	needJVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	lab := renderedOrders(t)
	cp, err := Resolve(ctx, lab, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]int{}
	free := func(name string) int {
		for {
			p, err := proc.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			taken := false
			for _, q := range ports {
				taken = taken || q == p
			}
			if !taken {
				ports[name] = p
				return p
			}
		}
	}
	p := Ports{
		Kafka: free("kafka"), KafkaController: free("ctl"), ZooKeeper: free("zk"),
		FlussCoordinator: free("fc"), FlussTablet: free("ft"),
		FlinkREST: free("rest"), Gateway: free("gw"), FlinkRPC: free("rpc"), FlinkBlob: free("blob"),
	}
	conf := FlinkConfig(lab.Lab, lay, p)
	jm, err := JobManagerService(ctx, lay, cp, p, conf)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := TaskManagerService(ctx, lay, cp, p, conf, "taskmanager")
	if err != nil {
		t.Fatal(err)
	}
	services := []Service{
		ZooKeeperService(lay, cp, p),
		KafkaService(lay, cp, p, lab.Lab),
		FlussCoordinatorService(lay, cp, p, lab.Lab),
		FlussTabletService(lay, cp, p, lab.Lab),
		jm, tm,
		SQLGatewayService(lay, cp, p, conf),
	}
	os.MkdirAll(filepath.Dir(lay.Log("x")), 0o755)
	pids := map[string]int{}
	for _, s := range services {
		took, pid := startForTest(ctx, t, lay, s)
		pids[s.Name] = pid
		t.Logf("%-18s healthy after %s", s.Name, took.Round(100*time.Millisecond))
	}

	rest := fmt.Sprintf("http://127.0.0.1:%d", p.FlinkREST)
	gw := fmt.Sprintf("http://127.0.0.1:%d", p.Gateway)
	client := flinkapi.New(rest, gw)
	sess, err := client.OpenSession(ctx, "native-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	qctx, qcancel := context.WithTimeout(ctx, 3*time.Minute)
	res, err := sess.Execute(qctx, "SELECT x * 2 AS y FROM (VALUES (1), (2), (3)) AS t(x)", 10)
	qcancel()
	if err != nil {
		t.Fatalf("query through the gateway: %v", err)
	}
	t.Logf("query through the gateway: job %s, rows %v", res.JobID, res.Rows)
	if len(res.Rows) != 3 {
		t.Errorf("rows %v", res.Rows)
	}
	sess.Close(ctx)

	start := time.Now()
	id, err := SubmitTiering(ctx, rest, cp.TieringJar, TieringArgs(lay, p))
	if err != nil {
		t.Fatalf("tiering: %v", err)
	}
	state := ""
	for time.Since(start) < 3*time.Minute {
		state = jobState(ctx, rest, id)
		if state == "RUNNING" || state == "FAILED" {
			break
		}
		time.Sleep(time.Second)
	}
	if state != "RUNNING" {
		t.Fatalf("the tiering job %s is %s, not RUNNING", id, state)
	}
	t.Logf("tiering job %s RUNNING after %s", id, time.Since(start).Round(100*time.Millisecond))
	if again, err := SubmitTiering(ctx, rest, cp.TieringJar, TieringArgs(lay, p)); err != nil || again != id {
		t.Errorf("a second SubmitTiering: %q, %v; want the running %s", again, err, id)
	}

	time.Sleep(5 * time.Second)
	total := 0
	for _, s := range services {
		out, _ := exec.Command("ps", "-o", "rss=", "-p", fmt.Sprint(pids[s.Name])).Output()
		var kb int
		fmt.Sscan(strings.TrimSpace(string(out)), &kb)
		total += kb
		t.Logf("%-18s RSS %4d MB", s.Name, kb/1024)
	}
	t.Logf("%-18s RSS %4d MB", "total", total/1024)
}

// startForTest runs one service as the supervisor does: Setup once, its
// files, its process (in its own group, killed with the test), its probe,
// then Ready.
func startForTest(ctx context.Context, t *testing.T, lay Layout, s Service) (time.Duration, int) {
	t.Helper()
	if s.Setup != nil {
		os.MkdirAll(lay.Data(s.Name), 0o755)
		if err := s.Setup(ctx); err != nil {
			t.Fatalf("%s setup: %v", s.Name, err)
		}
	}
	for path, b := range s.Files {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := s.Dir
	if dir == "" {
		dir = lay.Data(s.Name)
	}
	os.MkdirAll(dir, 0o755)
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), s.Env...)
	began := time.Now()
	p, err := proc.StartProc(s.Name, cmd, lay.Log(s.Name), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	limit := s.Health.Start
	if limit == 0 {
		limit = 2 * time.Minute
	}
	var last error
	for time.Since(began) < limit {
		select {
		case <-p.Exited():
			t.Fatalf("%s exited: %v\n%s", s.Name, p.Err(), proc.Tail(readLog(lay.Log(s.Name)), 30))
		default:
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		last = probeForTest(pctx, s.Health)
		cancel()
		if last == nil {
			if s.Ready != nil {
				if err := s.Ready(ctx); err != nil {
					t.Fatalf("%s ready: %v", s.Name, err)
				}
			}
			return time.Since(began), p.Pid()
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("%s not healthy after %s: %v\n%s", s.Name, limit, last, proc.Tail(readLog(lay.Log(s.Name)), 30))
	return 0, 0
}

func probeForTest(ctx context.Context, p Probe) error {
	switch {
	case p.TCP != "":
		return zkDialForTest(ctx, p.TCP)
	case p.HTTP != "":
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.HTTP, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s: %s", p.HTTP, resp.Status)
		}
		return nil
	case p.Func != nil:
		return p.Func(ctx)
	}
	return nil
}

func zkDialForTest(ctx context.Context, addr string) error {
	c, err := new(net.Dialer).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

func readLog(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func jobState(ctx context.Context, rest, id string) string {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rest+"/jobs/"+id, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var j struct {
		State string `json:"state"`
	}
	json.NewDecoder(resp.Body).Decode(&j)
	return j.State
}

// TestFlinkConfigStateBackend: the native TaskManager runs the lab's state
// backend; the native stack overrides none of its keys.
func TestFlinkConfigStateBackend(t *testing.T) {
	lab, diags := schemas.NewParser().Load("../../labs/orders", schemas.Options{Vars: []schemas.VarArg{{Name: "state_backend", Value: "rocksdb"}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := yamlKeys(t, flinkYAML(FlinkConfig(lab, Layout{Lab: "/lab", State: "/lab/.native"}, Ports{})))
	if got["state.backend.type"] != "rocksdb" || got["state.backend.incremental"] != "true" {
		t.Errorf("state.backend.type %q, state.backend.incremental %q; want rocksdb, true", got["state.backend.type"], got["state.backend.incremental"])
	}
}

// TestKafkaClusterIDs: the cluster ID of a lab is one Kafka's storage tool
// takes. The lab "loans" is the name that found the bug: its digest in
// base64url begins with "-" (-8qMVsuo-jQ_pOXnnkUUpg), which the tool read
// as an option, so the broker never started. Over 1000 random names, each
// ID is 16 bytes in base64url and none begins with "-"; "loans"'s is
// formatted by Kafka's own tool.
func TestKafkaClusterIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"loans", "orders", "sensors"}
	for range 1000 {
		b := make([]byte, 3+rng.IntN(12))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz_0123456789"[rng.IntN(37)]
		}
		names = append(names, "l"+string(b))
	}
	seen := map[string]string{}
	for _, n := range names {
		id := (&schemas.Lab{Name: n}).KafkaClusterID()
		if raw, err := base64.RawURLEncoding.DecodeString(id); err != nil || len(raw) != 16 || strings.HasPrefix(id, "-") {
			t.Errorf("lab %s: cluster ID %q", n, id)
		}
		if other, ok := seen[id]; ok {
			t.Errorf("labs %s and %s share the cluster ID %s", n, other, id)
		}
		seen[id] = n
	}
	id := (&schemas.Lab{Name: "loans"}).KafkaClusterID()
	if id == "-8qMVsuo-jQ_pOXnnkUUpg" {
		t.Fatalf("loans keeps the ID the storage tool refuses")
	}
	mode := testproc.Mode(t, "testkafka", "test servers")
	switch err := testkafka.FormatStorage(context.Background(), id); {
	case errors.Is(err, testkafka.ErrMissing):
		testproc.Missing(t, mode, err.Error())
	case err != nil:
		t.Fatal(err)
	}
}
