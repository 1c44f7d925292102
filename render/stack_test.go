package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/sirupsen/logrus"

	"github.com/labgen/labgen/schemas"
)

// stackVariants are the renderings the stack tests load: the seed lab, one
// without the lake components, and one with two task managers and without
// the optional UIs.
var stackVariants = []struct {
	name   string
	vars   []schemas.VarArg
	adjust func(*schemas.Lab)
}{
	{name: "seed"},
	{name: "no-lakes", vars: []schemas.VarArg{{Name: "lakes", Value: "false"}}},
	{name: "lean", adjust: func(l *schemas.Lab) {
		l.Stack.Flink.TaskManagers = 2
		l.Stack.KafkaUI = nil
		l.Stack.Console = nil
		l.Stack.BatchLoop = nil
	}},
}

func stackLab(t testing.TB, vars []schemas.VarArg, adjust func(*schemas.Lab)) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatalf("loading the seed lab: %s", diags.Error())
	}
	if adjust != nil {
		adjust(lab)
	}
	return lab
}

func stackRender(t testing.TB, l *schemas.Lab, opts Options) Files {
	t.Helper()
	if opts.LabgenVersion == "" {
		opts.LabgenVersion = "test"
	}
	files, err := Render(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// dotEnv reads KEY=VALUE lines.
func dotEnv(b []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out[k] = v
		}
	}
	return out
}

// logrusMu serialises tests that capture compose-go's warnings, which it
// writes through logrus's global logger.
var logrusMu sync.Mutex

// warningHook collects the warnings compose-go logs.
type warningHook struct{ msgs []string }

func (h *warningHook) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (h *warningHook) Fire(e *logrus.Entry) error {
	h.msgs = append(h.msgs, e.Message)
	return nil
}

// loadCompose writes the rendered directory and loads its compose.yaml the
// way docker compose does: the directory as working dir, .env for
// interpolation. It fails on errors and on any warning.
func loadCompose(t *testing.T, files Files) (*types.Project, string) {
	t.Helper()
	dir := t.TempDir()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	envFile := dotEnv(files[".env"])

	logrusMu.Lock()
	defer logrusMu.Unlock()
	hook := &warningHook{}
	logger := logrus.StandardLogger()
	oldOut, oldHooks := logger.Out, logger.ReplaceHooks(logrus.LevelHooks{})
	logger.AddHook(hook)
	logger.SetOutput(io.Discard)
	defer func() {
		logger.ReplaceHooks(oldHooks)
		logger.SetOutput(oldOut)
	}()

	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}},
		Environment: envFile,
	}, func(o *loader.Options) { o.SetProjectName(envFile["COMPOSE_PROJECT_NAME"], true) })
	if err != nil {
		t.Fatalf("compose-go cannot load compose.yaml: %v", err)
	}
	for _, w := range hook.msgs {
		t.Errorf("compose-go warns: %s", w)
	}
	return p, dir
}

func TestComposeLoadsWithoutWarnings(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			files := stackRender(t, l, Options{NoSource: true})
			p, dir := loadCompose(t, files)
			env := dotEnv(files[".env"])

			if p.Name != env["COMPOSE_PROJECT_NAME"] {
				t.Errorf("project name %q, .env says %q", p.Name, env["COMPOSE_PROJECT_NAME"])
			}
			// Passwords reach the services through interpolation of .env.
			if mysql, ok := p.Services["mysql"]; ok {
				if got := mysql.Environment["MYSQL_ROOT_PASSWORD"]; got == nil || *got != env["MYSQL_ROOT_PASSWORD"] {
					t.Errorf("mysql's MYSQL_ROOT_PASSWORD is not the one of .env")
				}
				// $$ in the file is the container's own $.
				if hc := strings.Join(mysql.HealthCheck.Test, " "); !strings.Contains(hc, `"$MYSQL_READER_PASSWORD"`) {
					t.Errorf("mysql health check does not read the password from the container: %s", hc)
				}
				var mounts []string
				for _, vol := range mysql.Volumes {
					mounts = append(mounts, vol.Source+" -> "+vol.Target)
				}
				for _, want := range []string{
					filepath.Join(dir, "sql/mysql/schema.sql") + " -> /docker-entrypoint-initdb.d/10-schema.sql",
					filepath.Join(dir, "sql/mysql/init-users.sh") + " -> /docker-entrypoint-initdb.d/20-users.sh",
					dir + " -> " + LabMount,
				} {
					if !contains(mounts, want) {
						t.Errorf("mysql does not mount %s (mounts: %v)", want, mounts)
					}
				}
			}
			// Compose interpolates only .env keys; the containers' own shell
			// variables are written $$ so that compose leaves them alone.
			raw := strings.ReplaceAll(string(files["compose.yaml"]), "$$", "")
			for _, m := range regexp.MustCompile(`\$(\{[^}]*\}|[A-Za-z_0-9]*)`).FindAllStringSubmatch(raw, -1) {
				name := strings.Trim(m[1], "{}")
				if _, ok := env[name]; !ok || !strings.HasPrefix(m[1], "{") {
					t.Errorf("compose.yaml interpolates %q, which is not a ${KEY} of .env", m[0])
				}
			}
			// The compose file names no secret itself.
			for k, val := range env {
				if strings.Contains(k, "PASSWORD") && bytes.Contains(files["compose.yaml"], []byte(val)) {
					t.Errorf("compose.yaml contains the value of %s; it must come from .env", k)
				}
			}
			// Every bind mount and build context is inside the directory.
			for name, s := range p.Services {
				for _, vol := range s.Volumes {
					if vol.Type == types.VolumeTypeBind {
						if !strings.HasPrefix(vol.Source, dir) {
							t.Errorf("%s mounts %s, outside the lab directory", name, vol.Source)
						} else if _, err := os.Stat(vol.Source); err != nil {
							t.Errorf("%s mounts %s, which the render did not write", name, vol.Source)
						}
					}
				}
				if s.Build != nil {
					if _, err := os.Stat(filepath.Join(s.Build.Context, "Dockerfile")); err != nil {
						t.Errorf("%s builds from %s, which has no Dockerfile", name, s.Build.Context)
					}
				}
			}
		})
	}
}

// TestComposeHealthAndOrder: every long-running service has a health check,
// every service_healthy dependency points at one, and every
// service_completed_successfully dependency at a one-shot service.
func TestComposeHealthAndOrder(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			p, _ := loadCompose(t, stackRender(t, l, Options{NoSource: true}))
			// A one-shot service runs until it exits; on-failure restarts
			// it until it exits 0 (tiering).
			oneShot := func(s types.ServiceConfig) bool {
				return s.Restart == "" || s.Restart == types.RestartPolicyNo || strings.HasPrefix(s.Restart, types.RestartPolicyOnFailure)
			}
			hasHealth := func(s types.ServiceConfig) bool {
				return s.HealthCheck != nil && !s.HealthCheck.Disable && len(s.HealthCheck.Test) > 0
			}
			for name, s := range p.Services {
				if !oneShot(s) && !hasHealth(s) {
					t.Errorf("long-running service %s has no health check", name)
				}
				if oneShot(s) && len(s.Ports) > 0 {
					t.Errorf("one-shot service %s publishes ports", name)
				}
				for dep, d := range s.DependsOn {
					target, ok := p.Services[dep]
					if !ok {
						t.Errorf("%s depends on %s, which is not a service", name, dep)
						continue
					}
					switch d.Condition {
					case types.ServiceConditionHealthy:
						if !hasHealth(target) {
							t.Errorf("%s waits for %s to be healthy, but %s has no health check", name, dep, dep)
						}
					case types.ServiceConditionCompletedSuccessfully:
						if !oneShot(target) {
							t.Errorf("%s waits for %s to complete, but %s runs on", name, dep, dep)
						}
					default:
						t.Errorf("%s depends on %s with condition %q; want service_healthy or service_completed_successfully", name, dep, d.Condition)
					}
				}
			}
			// The submitter starts the jobs only after every init step.
			if sub, ok := p.Services["job-submitter"]; ok {
				for name, s := range p.Services {
					if oneShot(s) && name != "job-submitter" {
						if _, ok := sub.DependsOn[name]; !ok {
							t.Errorf("job-submitter does not wait for the one-shot %s", name)
						}
					}
				}
			}
		})
	}
}

// TestComposePortsAndServices: only the declared components run, and
// every published port is the lab's, on 127.0.0.1.
func TestComposePortsAndServices(t *testing.T) {
	for _, v := range stackVariants {
		t.Run(v.name, func(t *testing.T) {
			l := stackLab(t, v.vars, v.adjust)
			files := stackRender(t, l, Options{NoSource: true})
			p, _ := loadCompose(t, files)

			// Long-running services are exactly those the lab's model names
			// (compose steps are validated against that list).
			var running []string
			for name, s := range p.Services {
				if s.Restart == types.RestartPolicyUnlessStopped {
					running = append(running, name)
				}
			}
			// Beside them render runs the job submitter (it keeps the
			// streaming jobs running), one service per further TaskManager,
			// and no batch loop when no bounded job is available.
			var want []string
			for _, name := range l.Services() {
				if name == "batch-loop" && len(l.AvailableJobs(schemas.ModeBatch)) == 0 {
					continue
				}
				want = append(want, name)
			}
			if l.Stack.Flink != nil {
				want = append(want, "job-submitter")
				want = append(want, TaskManagerNames(l)[1:]...)
			}
			sort.Strings(running)
			sort.Strings(want)
			if strings.Join(running, " ") != strings.Join(want, " ") {
				t.Errorf("long-running services %v, the lab declares %v", running, want)
			}

			s := l.Stack
			wantPorts := map[string]bool{}
			add := func(port int) { wantPorts[strconv.Itoa(port)] = true }
			if s.MySQL != nil {
				add(s.MySQL.Port)
			}
			if s.Kafka != nil {
				add(s.Kafka.Port)
				if s.KafkaUI != nil {
					add(s.KafkaUI.Port)
				}
			}
			if s.Flink != nil {
				add(s.Flink.UIPort)
				add(s.Flink.GatewayPort)
			}
			if s.ClickHouse != nil {
				add(s.ClickHouse.HTTPPort)
				add(s.ClickHouse.TCPPort)
			}
			if s.Console != nil {
				add(s.Console.Port)
			}
			got := map[string]bool{}
			for name, svc := range p.Services {
				for _, port := range svc.Ports {
					if port.HostIP != "127.0.0.1" {
						t.Errorf("%s publishes %s on %q, not 127.0.0.1", name, port.Published, port.HostIP)
					}
					if got[port.Published] {
						t.Errorf("host port %s is published twice", port.Published)
					}
					got[port.Published] = true
				}
			}
			for port := range wantPorts {
				if !got[port] {
					t.Errorf("the lab's port %s is not published", port)
				}
			}
			for port := range got {
				if !wantPorts[port] {
					t.Errorf("port %s is published, but the lab declares no such port", port)
				}
			}

			lakes := s.Fluss != nil || s.Iceberg != nil
			for _, name := range []string{"zookeeper", "coordinator-server", "tablet-server", "tiering"} {
				if _, ok := p.Services[name]; ok != (s.Fluss != nil) {
					t.Errorf("service %s present: %v, but the lab runs Fluss: %v", name, ok, s.Fluss != nil)
				}
			}
			dockerfile := string(files["flink/Dockerfile"])
			for _, jar := range []string{"fluss-", "paimon-", "iceberg-", "hadoop-"} {
				if strings.Contains(dockerfile, jar) != lakes {
					t.Errorf("flink/Dockerfile adds %s* jars: %v, but the lab runs lakes: %v", jar, !lakes, lakes)
				}
			}
			// One service per TaskManager, so that stopping taskmanager
			// stops exactly one.
			for i := 1; i <= l.Stack.Flink.TaskManagers; i++ {
				tm, ok := p.Services[TaskManagerName(i)]
				if !ok || tm.Deploy != nil {
					t.Errorf("TaskManager %d is not the service %s of its own", i, TaskManagerName(i))
				}
			}
			if _, ok := p.Services[TaskManagerName(l.Stack.Flink.TaskManagers+1)]; ok {
				t.Errorf("more TaskManagers than the lab's %d", l.Stack.Flink.TaskManagers)
			}
		})
	}
}

// TestComposeKafka checks the KRaft settings and that kafka-init creates
// every topic of the lab.
func TestComposeKafka(t *testing.T) {
	l := stackLab(t, nil, nil)
	p, _ := loadCompose(t, stackRender(t, l, Options{NoSource: true}))
	k := p.Services["kafka"]
	val := func(key string) string {
		if v := k.Environment[key]; v != nil {
			return *v
		}
		return ""
	}
	id := val("CLUSTER_ID")
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`).MatchString(id) {
		t.Errorf("CLUSTER_ID %q is not 16 bytes in base64url", id)
	}
	other := *l
	other.Name = "another"
	if other.KafkaClusterID() == id || l.KafkaClusterID() != id {
		t.Errorf("the cluster ID should be fixed per lab and differ between labs")
	}
	for key, want := range map[string]string{
		"KAFKA_ADVERTISED_LISTENERS":                     fmt.Sprintf("INTERNAL://%s,HOST://127.0.0.1:%d", KafkaInternal, l.Stack.Kafka.Port),
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "1",
		"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
		"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "1",
		"KAFKA_PROCESS_ROLES":                            "broker,controller",
	} {
		if got := val(key); got != want {
			t.Errorf("kafka %s = %q, want %q", key, got, want)
		}
	}
	if hc := strings.Join(k.HealthCheck.Test, " "); !strings.Contains(hc, "kafka-broker-api-versions.sh") {
		t.Errorf("kafka's health check does not ask the broker: %s", hc)
	}
	script := strings.Join(p.Services["kafka-init"].Entrypoint, " ")
	for _, tb := range l.Tables {
		if ks := tb.Store(schemas.StoreKafka); ks != nil {
			want := fmt.Sprintf("--topic %s --partitions %d ", ks.Name, max(ks.Partitions, 1))
			if !strings.Contains(script, want) {
				t.Errorf("kafka-init does not create %q", want)
			}
		}
	}
}

// TestScriptsPassShellcheck runs sh -n and shellcheck on every script the
// render writes, for the seed lab's variants and every feature case
// (testdata/cases): the scripts are templates whose parts each feature
// turns on or off.
func TestScriptsPassShellcheck(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		msg := "shellcheck not found in PATH (apt-get install shellcheck, or scripts/install-deps.sh)"
		if os.Getenv("LABGEN_TEST_SERVERS") == "require" {
			t.Fatal(msg + "; LABGEN_TEST_SERVERS=require")
		}
		t.Skip(msg + "; set LABGEN_TEST_SERVERS=require to fail instead")
	}
	type labCase struct {
		name string
		lab  func(testing.TB) *schemas.Lab
	}
	var labs []labCase
	for _, v := range stackVariants {
		labs = append(labs, labCase{v.name, func(t testing.TB) *schemas.Lab { return stackLab(t, v.vars, v.adjust) }})
	}
	for _, c := range featureCases(t) {
		labs = append(labs, labCase{"case-" + c.name, c.load})
	}
	for _, v := range labs {
		t.Run(v.name, func(t *testing.T) {
			files := stackRender(t, v.lab(t), Options{NoSource: true})
			dir := t.TempDir()
			if err := Write(dir, files); err != nil {
				t.Fatal(err)
			}
			var scripts []string
			for _, p := range files.Paths() {
				if executable(p) {
					scripts = append(scripts, p)
				}
			}
			if !contains(scripts, "stream-lab") {
				t.Fatalf("no stream-lab rendered (scripts: %v)", scripts)
			}
			for _, p := range scripts {
				full := filepath.Join(dir, p)
				if fi, err := os.Stat(full); err != nil || fi.Mode()&0o111 == 0 {
					t.Errorf("%s is not executable", p)
				}
				if out, err := exec.Command("sh", "-n", full).CombinedOutput(); err != nil {
					t.Errorf("sh -n %s: %v\n%s", p, err, out)
				}
				if out, err := exec.Command(shellcheck, "-s", "sh", full).CombinedOutput(); err != nil {
					t.Errorf("shellcheck %s: %v\n%s", p, err, out)
				}
			}
		})
	}
}

// TestStreamLabRunsWithoutDocker runs the parts of stream-lab that need no
// containers, and the rest against a stand-in docker that records its
// arguments.
func TestStreamLabRunsWithoutDocker(t *testing.T) {
	l := stackLab(t, nil, nil)
	files := stackRender(t, l, Options{NoSource: true})
	dir := t.TempDir()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "docker.log")
	fake := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + shQuote(log) + "\n"
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(dir, "stream-lab"), args...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "SMOKE_WAIT=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("console"); err != nil || strings.TrimSpace(out) != fmt.Sprintf("http://127.0.0.1:%d", l.Stack.Console.Port) {
		t.Errorf("stream-lab console: %q, %v", out, err)
	}
	if out, err := run("help"); err != nil || !strings.Contains(out, "./stream-lab smoke") {
		t.Errorf("stream-lab help: %q, %v", out, err)
	}
	if _, err := run("no-such-command"); err == nil {
		t.Errorf("stream-lab no-such-command should fail")
	}
	if _, err := run("compose", "ps", "--all"); err != nil {
		t.Errorf("stream-lab compose ps: %v", err)
	}
	calls, _ := os.ReadFile(log)
	wantCall := fmt.Sprintf("compose --project-directory %s -f %s --env-file %s ps --all", dir, filepath.Join(dir, "compose.yaml"), filepath.Join(dir, ".env"))
	if !strings.Contains(string(calls), wantCall) {
		t.Errorf("stream-lab compose called docker with\n%s\nwant %s", calls, wantCall)
	}
	// The stand-in reports nothing healthy: every check fails, each says so.
	out, err := run("smoke")
	if err == nil {
		t.Errorf("smoke passed with no containers:\n%s", out)
	}
	for _, name := range []string{"mysql", "kafka-init", "jobmanager", "batch-loop"} {
		if !strings.Contains(out, "FAIL  service "+name) {
			t.Errorf("smoke output has no failing check of %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "FAIL  Flink job order_wide is RUNNING") {
		t.Errorf("smoke does not check the streaming job:\n%s", out)
	}
	// Its Kafka tool runs in the broker's container with a heap of its
	// own, not the broker's KAFKA_HEAP_OPTS (issue 22, finding 15b).
	calls, _ = os.ReadFile(log)
	if want := "exec -T -e KAFKA_HEAP_OPTS=" + schemas.KafkaProbeHeap + " kafka /opt/kafka/bin/kafka-get-offsets.sh"; !strings.Contains(string(calls), want) {
		t.Errorf("smoke does not run %q:\n%s", want, calls)
	}
	for _, line := range strings.Split(string(calls), "\n") {
		if strings.Contains(line, " kafka /opt/kafka/bin/") && !strings.Contains(line, "KAFKA_HEAP_OPTS=") {
			t.Errorf("stream-lab runs a Kafka tool with the broker's heap: %s", line)
		}
	}

	// batch: a stand-in whose ClickHouse answers with the number of jobs
	// run so far, so each run changes the result version.
	counter := filepath.Join(bin, "runs")
	fake = "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + shQuote(log) + `
n=$(cat ` + shQuote(counter) + ` 2>/dev/null || echo 0)
case "$*" in
*run-sql*) echo $((n + 1)) >` + shQuote(counter) + ` ;;
*clickhouse-client*) echo "v$n" ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(log)
	out, err = run("batch")
	if err != nil {
		t.Errorf("batch failed: %v\n%s", err, out)
	}
	calls, _ = os.ReadFile(log)
	for _, j := range l.AvailableJobs(schemas.ModeBatch) {
		want := "run --rm --no-deps -T job-submitter sh " + LabMount + "/scripts/flink-jobs.sh run-sql " + LabMount + "/sql/flink/" + j + ".sql"
		if !strings.Contains(string(calls), want) {
			t.Errorf("batch did not run %s:\n%s", want, calls)
		}
	}
	if !strings.Contains(out, "PASS  bounded job hourly_sales finished; result version max(computed_at) in analytics.ads_hourly_sales is v1 (was v0)") {
		t.Errorf("batch does not report the result version:\n%s", out)
	}
}

func TestFlinkImageAndConfig(t *testing.T) {
	l := stackLab(t, nil, nil)
	files := stackRender(t, l, Options{NoSource: true})
	jars, err := connectorJars(l)
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(files["flink/Dockerfile"])
	if !strings.HasPrefix(strings.SplitN(dockerfile[strings.Index(dockerfile, "FROM "):], "\n", 2)[0], "FROM "+l.Stack.Flink.Image) {
		t.Errorf("flink/Dockerfile is not built on %s", l.Stack.Flink.Image)
	}
	lock := string(files["labgen.lock"])
	for _, j := range jars {
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(j.SHA256) {
			t.Errorf("%s: sha256 %q", j.Coordinates(), j.SHA256)
		}
		check := fmt.Sprintf("echo \"%s  %s\" | sha256sum -c -", j.SHA256, j.Path())
		if !strings.Contains(dockerfile, j.URL()) || !strings.Contains(dockerfile, check) {
			t.Errorf("flink/Dockerfile does not download %s and check its sha256", j.Coordinates())
		}
		if !strings.Contains(lock, j.Path()+"  "+j.Coordinates()+"  sha256:"+j.SHA256+"  "+j.URL()) {
			t.Errorf("labgen.lock does not list %s", j.Coordinates())
		}
	}
	var coords []string
	for _, j := range jars {
		coords = append(coords, j.Coordinates())
	}
	for _, want := range []string{
		"org.apache.flink:flink-sql-connector-mysql-cdc:3.5.0",
		"com.mysql:mysql-connector-j:8.4.0",
		"org.apache.flink:flink-connector-kafka:3.4.0-1.20",
		"org.apache.fluss:fluss-flink-1.20:0.9.1-incubating",
		"org.apache.fluss:fluss-lake-paimon:0.9.1-incubating",
		"org.apache.fluss:fluss-flink-tiering:0.9.1-incubating",
		"org.apache.paimon:paimon-flink-1.20:1.3.1",
		"org.apache.iceberg:iceberg-flink-runtime-1.20:1.10.1",
	} {
		if !contains(coords, want) {
			t.Errorf("the seed's Flink image lacks %s", want)
		}
	}
	if tj, ok := tieringJar(jars); !ok || tj.Dir != "opt" || !strings.Contains(string(files["scripts/flink-jobs.sh"]), "$FLINK_HOME/"+tj.Path()) {
		t.Errorf("the tiering jar is not in opt/ or not what flink-jobs.sh runs")
	}
	// Every pinned row is well formed.
	for c, sum := range jarSHA256 {
		if strings.Count(c, ":") != 2 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(sum) {
			t.Errorf("jarSHA256 row %q: %q", c, sum)
		}
	}
	// A version labgen has no checksum for is refused.
	bad := stackLab(t, nil, nil)
	bad.Stack.Iceberg.Version = "0.0.1"
	if _, err := Render(bad, Options{NoSource: true}); err == nil || !strings.Contains(err.Error(), "iceberg-flink-runtime-1.20:0.0.1") {
		t.Errorf("rendering with an unpinned Iceberg version: %v", err)
	}

	conf := string(files["flink/config.yaml"])
	for _, want := range []string{
		"execution.checkpointing.interval: " + schemas.FlinkDuration(l.Stack.Flink.CheckpointInterval),
		"execution.checkpointing.dir: file://" + CheckpointDir,
		"restart-strategy.type: fixed-delay",
		fmt.Sprintf("restart-strategy.fixed-delay.attempts: %d", l.Stack.Flink.Restart.Attempts),
		"restart-strategy.fixed-delay.delay: " + schemas.FlinkDuration(l.Stack.Flink.Restart.Delay),
		fmt.Sprintf("taskmanager.numberOfTaskSlots: %d", l.TaskSlots()),
		"rest.address: jobmanager",
	} {
		if !strings.Contains(conf, want+"\n") {
			t.Errorf("flink/config.yaml lacks %q", want)
		}
	}
	l.Stack.Flink.Restart = schemas.Restart{Strategy: "none"}
	if conf := string(flinkConfig(l)); !strings.Contains(conf, "restart-strategy.type: none\n") || strings.Contains(conf, "fixed-delay") {
		t.Errorf("restart strategy none is not rendered:\n%s", conf)
	}
}

// TestLockListsWhatTheDirectoryIs: images, jars and the files, with
// [files] readable by readLock, with each file's sha256.
func TestLockListsWhatTheDirectoryIs(t *testing.T) {
	l := stackLab(t, nil, nil)
	files := stackRender(t, l, Options{})
	lock := string(files["labgen.lock"])
	for _, im := range stackImages(l) {
		if !strings.Contains(lock, "\n"+im.Role+"  "+im.Ref+"\n") {
			t.Errorf("labgen.lock does not list the image %s (%s)", im.Ref, im.Role)
		}
	}
	if !strings.Contains(lock, "\nlabgen/src  sha256-tree:") {
		t.Errorf("labgen.lock has no tree hash of labgen/src")
	}
	entries, err := readLock([]byte(lock))
	if err != nil {
		t.Fatalf("readLock: %v", err)
	}
	var locked []string
	for _, e := range entries {
		locked = append(locked, e.path)
		if sum := sha256.Sum256(files[e.path]); hex.EncodeToString(sum[:]) != e.sum {
			t.Errorf("labgen.lock's sha256 of %s is not the file's", e.path)
		}
	}
	want := files.Paths()
	want = slicesDelete(want, "labgen.lock")
	if strings.Join(locked, "\n") != strings.Join(want, "\n") {
		t.Errorf("readLock reads %d files, the render wrote %d besides the lock", len(locked), len(want))
	}
	// LockLines keeps every section and drops only the refused files.
	sqlOnly := LockLines([]byte(lock), func(p string) bool { return strings.HasPrefix(p, "sql/") })
	for _, p := range locked {
		if line := "  " + p + "\n"; strings.Contains(sqlOnly, line) != strings.HasPrefix(p, "sql/") {
			t.Errorf("LockLines keeps %s: %v", p, strings.Contains(sqlOnly, line))
		}
	}
	if !strings.Contains(sqlOnly, "\n[images]\n") || !strings.Contains(sqlOnly, "\nlabgen/src  sha256-tree:") {
		t.Errorf("LockLines dropped more than files:\n%s", sqlOnly)
	}
	noSrc := string(stackRender(t, l, Options{NoSource: true})["labgen.lock"])
	if strings.Contains(noSrc, "labgen/src") {
		t.Errorf("a render without source mentions labgen/src in its lock")
	}
}

func slicesDelete(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// TestRenderTwiceSameBytes renders the full directory, labgen's source
// included, twice; and marshals one compose project twice.
func TestRenderTwiceSameBytes(t *testing.T) {
	for _, v := range stackVariants {
		l := stackLab(t, v.vars, v.adjust)
		a, b := stackRender(t, l, Options{}), stackRender(t, l, Options{})
		if len(a) != len(b) {
			t.Fatalf("%s: %d and %d files", v.name, len(a), len(b))
		}
		for p := range a {
			if !bytes.Equal(a[p], b[p]) {
				t.Errorf("%s: %s differs between two renders", v.name, p)
			}
		}
		st := buildStack(l, imagePrefix(l), a)
		y1, err1 := composeYAML(l, st.project)
		y2, err2 := composeYAML(l, st.project)
		if err1 != nil || err2 != nil || !bytes.Equal(y1, y2) || !bytes.Equal(y1, a["compose.yaml"]) {
			t.Errorf("%s: compose.yaml is not stable", v.name)
		}
	}
}

// TestImagesFollowTheirBuildContext: a built image's tag changes with its
// build context, so compose rebuilds it after a render changed it.
func TestImagesFollowTheirBuildContext(t *testing.T) {
	l := stackLab(t, nil, nil)
	a := stackRender(t, l, Options{NoSource: true})
	l.Stack.Flink.Slots = 9
	b := stackRender(t, l, Options{NoSource: true})
	tag := regexp.MustCompile(`labgen-orders-flink:[0-9a-f]+`)
	ta, tb := tag.Find(a["compose.yaml"]), tag.Find(b["compose.yaml"])
	if ta == nil || bytes.Equal(ta, tb) {
		t.Errorf("the Flink image tag did not change with flink/config.yaml: %s, %s", ta, tb)
	}
}

// TestSourceBuildsTheCommand compares the source the labgen image is built
// from with what `go list` says cmd/labgen needs.
func TestSourceBuildsTheCommand(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found in PATH")
	}
	cmd := exec.Command(goBin, "list", "-e", "-deps", "-json", "./cmd/labgen")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := labgenSource()
	if err != nil {
		t.Fatal(err)
	}
	need := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var pkg struct {
			ImportPath string
			Dir        string
			Module     *struct{ Main bool }
			GoFiles    []string
			CgoFiles   []string
			EmbedFiles []string
		}
		if err := dec.Decode(&pkg); err != nil {
			t.Fatal(err)
		}
		if pkg.Module == nil || !pkg.Module.Main {
			continue
		}
		rel, err := filepath.Rel(root, pkg.Dir)
		if err != nil {
			t.Fatal(err)
		}
		files := append(pkg.GoFiles, pkg.CgoFiles...)
		if pkg.ImportPath != "github.com/labgen/labgen" { // its embeds are this source itself
			files = append(files, pkg.EmbedFiles...)
		}
		for _, f := range files {
			need = append(need, filepath.ToSlash(filepath.Join(rel, f)))
		}
	}
	for _, p := range need {
		if _, ok := src[p]; !ok {
			t.Errorf("cmd/labgen needs %s, which labgen/src would lack: add it to the go:embed lines of source.go", p)
		}
	}
	for p := range src {
		if strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata/") {
			t.Errorf("labgen/src would carry %s", p)
		}
	}
	files := stackRender(t, stackLab(t, nil, nil), Options{})
	for _, p := range need {
		if _, ok := files[labgenSrcDir+p]; !ok {
			t.Errorf("the render does not write %s", labgenSrcDir+p)
		}
	}
	if df := string(files["labgen/Dockerfile"]); !strings.Contains(df, "FROM "+goBuildImage()+" AS build") || !strings.Contains(df, "./cmd/labgen") {
		t.Errorf("labgen/Dockerfile does not build cmd/labgen with %s:\n%s", goBuildImage(), df)
	}
	noSrc := stackRender(t, stackLab(t, nil, nil), Options{NoSource: true})
	for p := range noSrc {
		if strings.HasPrefix(p, labgenSrcDir) {
			t.Errorf("NoSource render writes %s", p)
		}
	}
	if !strings.Contains(string(noSrc["labgen/Dockerfile"]), "src/ is missing") {
		t.Errorf("without source, labgen/Dockerfile does not say how to get it")
	}
}

// TestFlinkJobsScript runs scripts/flink-jobs.sh against a stand-in Flink:
// sql-client.sh and flink record what they are given, curl answers
// /jobs/overview with the jobs "started" so far.
func TestFlinkJobsScript(t *testing.T) {
	l := stackLab(t, nil, nil)
	files := stackRender(t, l, Options{NoSource: true})
	lab := t.TempDir()
	if err := Write(lab, files); err != nil {
		t.Fatal(err)
	}
	home, bin, state := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\nSTATE="+shQuote(state)+"\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// sql-client.sh -f FILE: a job's script is kept and its job "started";
	// SHOW TABLES lists the lake tables created so far, as the SQL client
	// prints them; a CREATE TABLE script is kept and its tables "created".
	write(filepath.Join(home, "bin", "sql-client.sh"), `if grep -q '^SHOW TABLES IN ' "$2"; then
	db=$(sed -n 's/^SHOW TABLES IN \([^.]*\)\..\(.*\).;$/\1.\2/p' "$2")
	echo '+----------------+'
	echo '|     table name |'
	echo '+----------------+'
	[ -f "$STATE/tables" ] && sed -n "s/^$db\.\(.*\)/| \1 |/p" "$STATE/tables"
	exit 0
fi
if grep -q '^CREATE TABLE' "$2"; then
	n=$(ls "$STATE" | grep -c '^created-')
	cp "$2" "$STATE/created-$n.sql"
	sed -n 's/^-- lake table: //p' "$2" >>"$STATE/tables"
	exit 0
fi
n=$(ls "$STATE" | grep -c '^submitted-')
cp "$2" "$STATE/submitted-$n.sql"
sed -n "s/^SET 'pipeline.name' = '\(.*\)';$/\1/p" "$2" >>"$STATE/running"
`)
	// flink run ...: keep the arguments, "start" the named job.
	write(filepath.Join(home, "bin", "flink"), `printf '%s\n' "$*" >>"$STATE/flink-run"
for a in "$@"; do
	case $a in -Dpipeline.name=*) echo "${a#-Dpipeline.name=}" >>"$STATE/running" ;; esac
done
`)
	write(filepath.Join(bin, "curl"), `printf '{"jobs":['
sep=''
if [ -f "$STATE/running" ]; then
	while IFS= read -r name; do
		printf '%s{"jid":"x","name":"%s","start-time":1,"state":"RUNNING","tasks":{"running":1}}' "$sep" "$name"
		sep=,
	done <"$STATE/running"
fi
printf ']}\n'
`)
	run := func(args ...string) (string, error) {
		cmd := exec.Command("sh", append([]string{filepath.Join(lab, "scripts", "flink-jobs.sh")}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FLINK_HOME="+home, "LAB="+lab,
			"MYSQL_CDC_USER=cdc_user_x", "MYSQL_CDC_PASSWORD=cdc-pw-x")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	if out, err := run("submit"); err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	sub, err := os.ReadFile(filepath.Join(state, "submitted-0.sql"))
	if err != nil {
		t.Fatalf("submit did not run the SQL client: %v", err)
	}
	if bytes.Contains(sub, []byte("${MYSQL_CDC")) || !bytes.Contains(sub, []byte("'cdc_user_x'")) || !bytes.Contains(sub, []byte("'cdc-pw-x'")) {
		t.Errorf("the submitted SQL does not carry the CDC user and password from the environment")
	}
	if !bytes.Contains(sub, []byte("SET 'pipeline.name' = 'order_wide';")) {
		t.Errorf("submit ran another job than order_wide")
	}
	// The lake tables were created once, before the job, each under its
	// catalog and database.
	created := readFile(t, filepath.Join(state, "created-0.sql"))
	for _, want := range []string{"CREATE CATALOG fluss_catalog", "CREATE DATABASE IF NOT EXISTS fluss_catalog.`lab`",
		"CREATE TABLE IF NOT EXISTS fluss_catalog.`lab`.`dwd_order_wide`", "CREATE TABLE IF NOT EXISTS iceberg_catalog.`lab`.`dwd_order_wide`"} {
		if !strings.Contains(created, want) {
			t.Errorf("the lake tables' script lacks %q:\n%s", want, created)
		}
	}
	if bytes.Contains(sub, []byte("CREATE TABLE IF NOT EXISTS fluss_catalog")) {
		t.Errorf("the job's script creates a lake table; only lake_tables.sql may")
	}
	if out, err := run("lake-tables"); err != nil || !strings.Contains(out, "lake table fluss_catalog.lab.dwd_order_wide exists") {
		t.Errorf("lake-tables with the tables there: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(state, "created-1.sql")); err == nil {
		t.Errorf("lake tables that exist were created again:\n%s", readFile(t, filepath.Join(state, "created-1.sql")))
	}
	if out, err := run("submit"); err != nil || !strings.Contains(out, "order_wide already runs") {
		t.Errorf("a second submit should leave the running job alone: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(state, "submitted-1.sql")); err == nil {
		t.Errorf("a second submit ran the SQL client again")
	}

	if out, err := run("tiering"); err != nil {
		t.Fatalf("tiering: %v\n%s", err, out)
	}
	args, _ := os.ReadFile(filepath.Join(state, "flink-run"))
	tj, _ := tieringJar(mustJars(t, l))
	for _, want := range []string{"run -d", "-Dpipeline.name=" + TieringJobName, home + "/" + tj.Path(),
		"--fluss.bootstrap.servers " + FlussBootstrap, "--datalake.format paimon", "--datalake.paimon.warehouse " + PaimonWarehouse} {
		if !strings.Contains(string(args), want) {
			t.Errorf("flink run %s lacks %q", args, want)
		}
	}
	if out, err := run("tiering"); err != nil || strings.Count(readFile(t, filepath.Join(state, "flink-run")), "\n") != 1 {
		t.Errorf("a second tiering start should leave the running job alone: %v\n%s", err, out)
	}
	// keep (job-submitter's loop): after every pause it submits what is
	// missing. The stand-in sleep plays a JobManager restart at the first
	// pause (no job runs any more: no HA) and ends the loop at the second.
	write(filepath.Join(bin, "sleep"), `n=$(cat "$STATE/sleeps" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$STATE/sleeps"
if [ "$n" = 1 ]; then
	rm -f "$STATE/running"
	exit 0
fi
kill "$PPID"
`)
	out, _ := run("keep")
	if got := strings.TrimSpace(readFile(t, filepath.Join(state, "sleeps"))); got != "2" {
		t.Fatalf("keep paused %s times, want 2:\n%s", got, out)
	}
	resub, err := os.ReadFile(filepath.Join(state, "submitted-1.sql"))
	if err != nil || !bytes.Contains(resub, []byte("SET 'pipeline.name' = 'order_wide';")) {
		t.Errorf("after the restart keep did not submit order_wide again (%v):\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(state, "submitted-2.sql")); err == nil {
		t.Errorf("keep submitted a job twice:\n%s", out)
	}
	if n := strings.Count(readFile(t, filepath.Join(state, "flink-run")), "\n"); n != 2 {
		t.Errorf("keep started the tiering job %d times in all, want 2 (once before, once after the restart):\n%s", n, out)
	}

	if _, err := run("run-sql", filepath.Join(lab, "sql", "flink", "no_such_job.sql")); err == nil {
		t.Errorf("run-sql of a missing file should fail")
	}
	if _, err := run("bogus"); err == nil {
		t.Errorf("an unknown step should fail")
	}
}

func mustJars(t *testing.T, l *schemas.Lab) []Jar {
	t.Helper()
	jars, err := connectorJars(l)
	if err != nil {
		t.Fatal(err)
	}
	return jars
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOnePaimonRelease: Fluss tiering into Paimon and a paimon block share
// the paimon-flink jar; the image gets it once, and two releases of it are
// an error rather than two jars on Flink's class path.
func TestOnePaimonRelease(t *testing.T) {
	count := func(jars []Jar) int {
		n := 0
		for _, j := range jars {
			if strings.HasPrefix(j.Artifact, "paimon-flink-") {
				n++
			}
		}
		return n
	}
	l := stackLab(t, nil, func(l *schemas.Lab) {
		l.Stack.Paimon = &schemas.Paimon{Version: l.Stack.Fluss.LakeVersion, Database: "lab"}
	})
	jars, err := connectorJars(l)
	if err != nil || count(jars) != 1 {
		t.Fatalf("fluss and paimon at one release: %d paimon-flink jars, %v", count(jars), err)
	}
	l.Stack.Paimon.Version = "1.2.0"
	if _, err := connectorJars(l); err == nil || !strings.Contains(err.Error(), "two releases of org.apache.paimon:paimon-flink-1.20") {
		t.Errorf("two releases: %v", err)
	}
}
