package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// standIn puts a stand-in docker first on PATH. It appends its arguments
// to a log and answers `compose … ps` with the files ps1, ps2, … of its
// directory in turn (the last one again when they run out). mode selects
// a failure: "noengine", "nocompose", or "" for success.
func standIn(t *testing.T, mode string, ps ...string) (lab, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "args.log")
	for i, p := range ps {
		if err := os.WriteFile(filepath.Join(bin, fmt.Sprintf("ps%d", i+1)), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `#!/bin/sh
dir=$(dirname "$0")
printf '%s\n' "$*" >> "$dir/args.log"
case "$STANDIN_MODE" in
noengine) echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1 ;;
nocompose) echo "docker: 'compose' is not a docker command." >&2; echo "See 'docker --help'" >&2; exit 1 ;;
noplugin) echo "unknown flag: --project-directory" >&2; echo >&2; echo "Usage:  docker [OPTIONS] COMMAND [ARG...]" >&2; exit 125 ;;
esac
case " $* " in
*" ps "*)
  n=$(cat "$dir/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$dir/n"
  while [ $n -gt 0 ] && [ ! -f "$dir/ps$n" ]; do n=$((n-1)); done
  [ $n -gt 0 ] && cat "$dir/ps$n"
  ;;
*" config --services "*) printf 'batch-loop\nmysql\nkafka-init\njob-submitter\n' ;;
*" logs "*) echo "clickhouse-init  | Code: 62. DB::Exception: Syntax error" ;;
*" down "*) echo " Container lab-mysql-1  Removed" ;;
esac
exit 0
`
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("STANDIN_MODE", mode)
	lab = t.TempDir()
	if err := os.WriteFile(filepath.Join(lab, "compose.yaml"), []byte("services: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return lab, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

const (
	psStarting = `{"Service":"mysql","Name":"lab-mysql-1","State":"running","Health":"starting","ExitCode":0}
{"Service":"kafka-init","Name":"lab-kafka-init-1","State":"running","Health":"","ExitCode":0}
`
	psReady = `{"Service":"mysql","Name":"lab-mysql-1","State":"running","Health":"healthy","ExitCode":0}
{"Service":"kafka-init","Name":"lab-kafka-init-1","State":"exited","Health":"","ExitCode":0}
`
)

func TestUpWaitsForHealth(t *testing.T) {
	lab, log := standIn(t, "", psStarting, psStarting, psReady)
	c, err := New(lab)
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	svcs, err := c.Up(context.Background(), UpOptions{Build: true, Interval: time.Millisecond},
		func(s Service) { progress = append(progress, s.Service+" "+s.Describe()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs) != 2 {
		t.Fatalf("services: %+v", svcs)
	}
	want := "[kafka-init running mysql starting kafka-init exited (0) mysql healthy]"
	if fmt.Sprint(progress) != want {
		t.Errorf("progress %v, want %s", progress, want)
	}
	got := calls(t, log)
	prefix := "compose --project-directory " + lab + " -f " + filepath.Join(lab, "compose.yaml") + " "
	wantCalls := []string{"up --detach --build", "ps --all --format json", "ps --all --format json", "ps --all --format json"}
	if len(got) != len(wantCalls) {
		t.Fatalf("calls: %q", got)
	}
	for i := range got {
		if got[i] != prefix+wantCalls[i] {
			t.Errorf("call %d: %q, want %q", i, got[i], prefix+wantCalls[i])
		}
	}
}

// TestUpExcept starts every service but the excepted ones, by name, as
// docker compose config lists them.
func TestUpExcept(t *testing.T) {
	lab, log := standIn(t, "", psReady)
	c, err := New(lab)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Up(context.Background(), UpOptions{Interval: time.Millisecond, Except: []string{"job-submitter", "batch-loop"}}, nil); err != nil {
		t.Fatal(err)
	}
	got := calls(t, log)
	prefix := "compose --project-directory " + lab + " -f " + filepath.Join(lab, "compose.yaml") + " "
	want := []string{prefix + "config --services", prefix + "up --detach mysql kafka-init", prefix + "ps --all --format json"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("calls:\n%q\nwant\n%q", got, want)
	}
}

func TestUpReportsAFailedService(t *testing.T) {
	failed := `{"Service":"clickhouse-init","State":"exited","ExitCode":62}
{"Service":"mysql","State":"running","Health":"healthy"}`
	lab, _ := standIn(t, "", failed)
	c, err := New(lab)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Up(context.Background(), UpOptions{Interval: time.Millisecond}, nil)
	if err == nil || !strings.Contains(err.Error(), "clickhouse-init is exited (62)") || !strings.Contains(err.Error(), "Syntax error") {
		t.Fatalf("err: %v", err)
	}
}

func TestUpTimesOut(t *testing.T) {
	lab, _ := standIn(t, "", psStarting)
	c, _ := New(lab)
	_, err := c.Up(context.Background(), UpOptions{Interval: time.Millisecond, Timeout: 20 * time.Millisecond}, nil)
	if err == nil || !strings.Contains(err.Error(), "mysql (starting)") {
		t.Fatalf("err: %v", err)
	}
}

func TestServiceActionsAndDown(t *testing.T) {
	lab, log := standIn(t, "")
	c, _ := New(lab)
	for _, a := range []string{"stop", "start", "restart", "pause", "unpause"} {
		if _, err := c.Service(context.Background(), a, "taskmanager"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Service(context.Background(), "kill", "taskmanager"); err == nil || !strings.Contains(err.Error(), "want stop, start, restart, pause, unpause") {
		t.Fatalf("kill: %v", err)
	}
	out, err := c.Down(context.Background(), true)
	if err != nil || !strings.Contains(out, "Removed") {
		t.Fatalf("down: %q %v", out, err)
	}
	got := calls(t, log)
	var tails []string
	for _, g := range got {
		tails = append(tails, g[strings.Index(g, "compose.yaml ")+len("compose.yaml "):])
	}
	want := "[stop taskmanager start taskmanager restart taskmanager pause taskmanager unpause taskmanager down --remove-orphans --volumes]"
	if fmt.Sprint(tails) != want {
		t.Fatalf("calls %v, want %s", tails, want)
	}
	if !strings.HasPrefix(c.Command("stop", "x"), "docker compose --project-directory ") {
		t.Fatal(c.Command("stop", "x"))
	}
}

func TestDockerProblemsAreOneSentence(t *testing.T) {
	for mode, want := range map[string]string{
		"noengine":  "Docker is installed but its engine is not running",
		"nocompose": "Docker is installed without the compose plugin",
		"noplugin":  "Docker is installed without the compose plugin",
	} {
		lab, _ := standIn(t, mode)
		c, _ := New(lab)
		_, err := c.Up(context.Background(), UpOptions{}, nil)
		if !errors.Is(err, ErrNoDocker) || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: %v", mode, err)
		}
	}
	// No docker at all.
	t.Setenv("PATH", t.TempDir())
	lab := t.TempDir()
	os.WriteFile(filepath.Join(lab, "compose.yaml"), nil, 0o644)
	_, err := New(lab)
	if !errors.Is(err, ErrNoDocker) || !strings.Contains(err.Error(), "no docker command was found on PATH") {
		t.Fatalf("missing docker: %v", err)
	}
	if _, err := New(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no compose.yaml") {
		t.Fatalf("not a lab: %v", err)
	}
}

func TestParsePSArray(t *testing.T) {
	svcs, err := parsePS([]byte(`[{"Service":"b","State":"running"},{"Service":"a","State":"exited","ExitCode":1}]`))
	if err != nil || len(svcs) != 2 || svcs[0].Service != "a" || !svcs[0].Failed() || !svcs[1].Ready() {
		t.Fatalf("%+v %v", svcs, err)
	}
}
