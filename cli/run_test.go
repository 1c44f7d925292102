package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/labgen/labgen/runtime/flinkapi"
	"github.com/labgen/labgen/runtime/flinkapi/flinktest"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func init() { flinkapi.PollInterval = 0 }

// dockerStandIn puts a docker first on PATH that logs its arguments and
// answers ps with every service healthy.
func dockerStandIn(t *testing.T, mode string) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "args.log")
	script := `#!/bin/sh
printf '%s\n' "$*" >> "` + log + `"
if [ "` + mode + `" = noengine ]; then
  echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2
  exit 1
fi
case " $* " in
*" config --services "*) printf 'mysql\nkafka-init\njob-submitter\nbatch-loop\n' ;;
*" ps "*) echo '{"Service":"mysql","State":"running","Health":"healthy"}'; echo '{"Service":"kafka-init","State":"exited","ExitCode":0}' ;;
*" down "*) echo " Network lab_default  Removed" ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func notesLab() *schemas.Lab {
	return &schemas.Lab{Name: "notes", Title: "Notes", Seed: 1, Stack: &schemas.Stack{},
		Experiments: []*schemas.Experiment{
			{Name: "one", Number: 1, Title: "One", Steps: []*schemas.Step{{Name: "hello", Kind: schemas.StepNote, Note: "Hello."}}},
			{Name: "two", Number: 2, Title: "Two", Steps: []*schemas.Step{{Name: "bye", Kind: schemas.StepNote, Note: "Bye."}}},
		}}
}

func TestUpAndDown(t *testing.T) {
	log := dockerStandIn(t, "")
	dir := labdirtest.Rendered(t, notesLab(), map[string]string{"compose.yaml": "services: {}\n", "labgen.lock": labgenLock})
	code, _, stderr := run(t, dir, nil, "up", dir)
	if code != ExitOK || !strings.Contains(stderr, "mysql                healthy") || !strings.Contains(stderr, "All 2 services are ready") {
		t.Fatalf("up: %d\n%s", code, stderr)
	}
	code, stdout, _ := run(t, dir, nil, "down", dir, "--volumes")
	if code != ExitOK || !strings.Contains(stdout, "volumes are removed") {
		t.Fatalf("down: %d %s", code, stdout)
	}
	b, _ := os.ReadFile(log)
	calls := string(b)
	for _, want := range []string{"compose.yaml up --detach\n", "compose.yaml ps --all --format json\n", "compose.yaml down --remove-orphans --volumes\n"} {
		if !strings.Contains(calls, want) {
			t.Errorf("docker calls lack %q:\n%s", want, calls)
		}
	}
}

func TestUpWithoutDockerEngine(t *testing.T) {
	dockerStandIn(t, "noengine")
	dir := labdirtest.Rendered(t, notesLab(), map[string]string{"compose.yaml": "services: {}\n"})
	code, _, stderr := run(t, dir, nil, "up", dir)
	want := "labgen up: Docker is installed but its engine is not running or not reachable (Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?): start Docker and try again.\n"
	if code != ExitRunFailed || !strings.HasSuffix(stderr, want) {
		t.Fatalf("%d %q", code, stderr)
	}
	// run without --no-up says the same and how to do without Docker.
	code, _, stderr = run(t, dir, nil, "run", dir)
	if code != ExitRunFailed || !strings.Contains(stderr, "start Docker and try again") {
		t.Fatalf("run: %d %q", code, stderr)
	}
}

func TestRunShowDiff(t *testing.T) {
	dir := labdirtest.Rendered(t, notesLab(), nil)
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--experiment", "two")
	if code != ExitOK || !strings.Contains(stdout, "1 steps: 1 ok, 0 failed") {
		t.Fatalf("run: %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "02 Two") || !strings.Contains(stderr, "ok        bye") || strings.Contains(stderr, "01 One") {
		t.Errorf("progress:\n%s", stderr)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*", record.JSONName))
	if len(recs) != 1 {
		t.Fatalf("records: %v", recs)
	}
	code, stdout, _ = run(t, dir, nil, "record", "show", filepath.Dir(recs[0]))
	if code != ExitOK || !strings.Contains(stdout, "## 02 Two") || !strings.Contains(stdout, "Bye.") {
		t.Fatalf("show: %d\n%s", code, stdout)
	}
	code, _, _ = run(t, dir, nil, "run", dir, "--no-up")
	if code != ExitOK {
		t.Fatal(code)
	}
	recs, _ = filepath.Glob(filepath.Join(dir, "records", "*", record.JSONName))
	code, stdout, _ = run(t, dir, nil, "record", "diff", recs[0], recs[1])
	if code != ExitOK || !strings.Contains(stdout, "01 one: experiment: not run → done") && !strings.Contains(stdout, "01 one: experiment: done → not run") {
		t.Fatalf("diff: %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, dir, nil, "record", "diff", recs[0], recs[0])
	if code != ExitOK || !strings.HasPrefix(stdout, "The records agree") {
		t.Fatalf("diff of itself: %s", stdout)
	}
	code, _, stderr = run(t, dir, nil, "run", dir, "--no-up", "--experiment", "9")
	if code != ExitUsage || !strings.Contains(stderr, `no experiment "9" in lab notes; it has: 1 one, 2 two`) {
		t.Fatalf("unknown experiment: %d %s", code, stderr)
	}
}

// A step that fails makes the exit code 3; the error is in the record and
// the password of the DSN is not.
func TestRunExitCodeOnFailure(t *testing.T) {
	l := notesLab()
	l.Stack.MySQL = &schemas.MySQL{Database: "shop", Port: 1}
	l.Experiments[0].Steps = append(l.Experiments[0].Steps, &schemas.Step{Name: "q", Kind: schemas.StepQuery,
		Query: &schemas.QueryStep{Engine: "mysql", SQL: schemas.Expr{Text: "SELECT 1"}}})
	dir := labdirtest.Rendered(t, l, map[string]string{".env": "MYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD=s3cr3t-pw\n"})
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--experiment", "1")
	if code != ExitRunFailed || !strings.Contains(stderr, "FAILED    q") || !strings.Contains(stderr, "connection refused") {
		t.Fatalf("%d\n%s\n%s", code, stdout, stderr)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*", "record.*"))
	for _, p := range recs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "s3cr3t-pw") {
			t.Errorf("%s holds the password", p)
		}
		if !strings.Contains(string(b), "reader:****@tcp(127.0.0.1:1)/shop") {
			t.Errorf("%s lacks the masked endpoint", p)
		}
	}
}

// labgen run takes --mysql as labgen produce does: a mysql:// URL (issue
// 13: it used to fail with "default addr for network 'host:3306'
// unknown"); the password stays out of the record.
func TestRunMySQLURL(t *testing.T) {
	l := notesLab()
	l.Stack.MySQL = &schemas.MySQL{Database: "shop", Port: 1}
	l.Experiments[0].Steps = append(l.Experiments[0].Steps, &schemas.Step{Name: "q", Kind: schemas.StepQuery,
		Query: &schemas.QueryStep{Engine: "mysql", SQL: schemas.Expr{Text: "SELECT 1"}}})
	dir := labdirtest.Rendered(t, l, map[string]string{".env": "MYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD=pw\n"})
	addr := closedPort(t)
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--experiment", "1", "--mysql", "mysql://u:url-s3cret@"+addr+"/other")
	if code != ExitRunFailed || !strings.Contains(stderr, "connection refused") || strings.Contains(stderr, "unknown") {
		t.Fatalf("%d\n%s\n%s", code, stdout, stderr)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*", "record.*"))
	for _, p := range recs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "url-s3cret") || !strings.Contains(string(b), "u:****@tcp("+addr+")/other") {
			t.Errorf("%s: password or endpoint:\n%s", p, b)
		}
	}
	code, _, stderr = run(t, dir, nil, "run", dir, "--no-up", "--mysql", "mysql://u:url-s3cret@")
	if code != ExitUsage || !strings.Contains(stderr, "--mysql ") || strings.Contains(stderr, "url-s3cret") {
		t.Errorf("bad URL: %d %s", code, stderr)
	}
}

// labgen batch runs the bounded job through the SQL gateway (answers
// recorded from Flink 1.20.1).
func TestBatchCommand(t *testing.T) {
	srv := flinktest.Replay(t, "flink-1.20.1/batch.json")
	script, err := os.ReadFile(filepath.Join(flinktest.Dir(), "batch.sql"))
	if err != nil {
		t.Fatal(err)
	}
	l := notesLab()
	l.Stack.Flink = &schemas.Flink{Version: "1.20.1"}
	l.Jobs = []*schemas.Job{{Name: "hourly_sales", Mode: schemas.ModeBatch}}
	dir := labdirtest.Rendered(t, l, map[string]string{"sql/flink/hourly_sales.sql": string(script)})
	code, stdout, stderr := run(t, dir, nil, "batch", dir, "--no-up", "--flink", srv.REST, "--gateway", srv.Gateway)
	if code != ExitOK || !strings.Contains(stdout, "1 steps: 1 ok") {
		t.Fatalf("%d\n%s\n%s", code, stdout, stderr)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*", record.MarkdownName))
	b, _ := os.ReadFile(recs[0])
	if !strings.Contains(string(b), "| hourly_sales | e3833139e48287348e51bbdc33bc2121 | FINISHED |") {
		t.Errorf("record:\n%s", b)
	}
}

// On a terminal, a wait shows a spinner with a countdown.
func TestRunProgressOnTerminal(t *testing.T) {
	l := notesLab()
	l.Experiments[0].Steps = append(l.Experiments[0].Steps, &schemas.Step{Name: "pause", Kind: schemas.StepWait, Wait: &schemas.WaitStep{Duration: "400ms"}})
	dir := labdirtest.Rendered(t, l, nil)
	var stdout, stderr strings.Builder
	env := &Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""), Terminal: true}
	if code := RunEnv(context.Background(), []string{"run", dir, "--no-up", "--experiment", "1"}, env); code != ExitOK {
		t.Fatalf("%d\n%s", code, stderr.String())
	}
	out := stderr.String()
	if !strings.Contains(out, "pause: waiting 400ms") || !strings.Contains(out, "left") || !strings.Contains(out, "\r\033[K   ok        pause") {
		t.Fatalf("progress:\n%q", out)
	}
}

// On the compose face run starts every service but those that submit jobs
// (job-submitter, batch-loop), lets the engines check, and only then starts
// the rest: the stand-in gateway's first request comes between the two
// `up`s in the log both write to.
func TestRunChecksBeforeTheSubmittersStart(t *testing.T) {
	log := dockerStandIn(t, "")
	var mu sync.Mutex
	appendLog := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		fmt.Fprintln(f, line)
	}
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		appendLog("gateway " + r.Method + " " + r.URL.Path)
		http.Error(w, `{"errors":["a stand-in gateway"]}`, http.StatusInternalServerError)
	}))
	defer gw.Close()
	dir := seedLab(t, "MYSQL_READER_USER=r\nMYSQL_READER_PASSWORD=p\n", func(l *schemas.Lab) {
		// What runs after the check is not this test's: one note.
		e := *l.Experiments[0]
		e.Steps = []*schemas.Step{{Name: "hello", Kind: schemas.StepNote, Note: "Hello."}}
		l.Experiments = []*schemas.Experiment{&e}
	})
	if err := os.WriteFile(filepath.Join(dir, "compose.yaml"), []byte("services: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	closed := closedPort(t)
	_, _, stderr := run(t, dir, nil, "run", dir, "--gateway", gw.URL, "--flink", "http://"+closed,
		"--mysql", closed, "--clickhouse", closed, "--kafka", closed)
	if !strings.Contains(stderr, "Asking the engines to check") {
		t.Fatalf("no engine check:\n%s", stderr)
	}
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	index := func(pred func(string) bool) int {
		for i, l := range lines {
			if pred(l) {
				return i
			}
		}
		return -1
	}
	partial := index(func(l string) bool {
		return strings.Contains(l, " up --detach ") && !strings.HasSuffix(l, " up --detach")
	})
	check := index(func(l string) bool { return strings.HasPrefix(l, "gateway ") })
	full := index(func(l string) bool { return strings.HasSuffix(l, " up --detach") })
	if partial < 0 || check < 0 || full < 0 || !(partial < check && check < full) {
		t.Fatalf("want the partial up, then the check, then the full up (%d, %d, %d):\n%s", partial, check, full, b)
	}
	if up := lines[partial]; strings.Contains(up, "job-submitter") || strings.Contains(up, "batch-loop") || !strings.Contains(up, " mysql") {
		t.Errorf("the first up starts a submitter or misses a service: %s", up)
	}
}
