package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
)

func TestProduceSampleDeterministic(t *testing.T) {
	dir := seedLab(t, "", nil)
	code, a, stderr := run(t, "", nil, "produce", dir, "--sample", "500")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, b, _ := run(t, "", nil, "produce", dir, "--sample", "500")
	if a != b {
		t.Fatal("two --sample runs print different lines")
	}
	lines := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	if len(lines) != 500 {
		t.Fatalf("--sample 500 printed %d lines", len(lines))
	}
	events := map[string]int{}
	for _, l := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not a JSON line: %s", l)
		}
		events[ev["event"].(string)]++
	}
	if events["shop"] == 0 || events["payment"] == 0 {
		t.Errorf("events: %v; want orders (shop) and payments", events)
	}
	if !strings.HasPrefix(lines[0], `{"time":"2000-01-01T00:00:00.000Z","event":"shop","table":"orders","row":{"order_id":1,`) {
		t.Errorf("first line: %s", lines[0])
	}

	_, c, _ := run(t, "", nil, "produce", dir, "--sample", "500", "--seed", "2")
	if c == a {
		t.Error("--seed 2 prints the same lines as the lab's seed")
	}
	_, d, _ := run(t, "", nil, "produce", dir, "--sample", "3", "--start", "2026-05-01T12:00:00Z", "--rate", "max")
	if !strings.Contains(d, `"created_at":"2026-05-01 12:00:00.000"`) {
		t.Errorf("--start does not set the clock:\n%s", d)
	}
	// --sample needs no database: nothing about MySQL, no .env.
	if stderr != "" {
		t.Errorf("--sample wrote to stderr: %s", stderr)
	}
}

func TestProduceUsage(t *testing.T) {
	dir := seedLab(t, "", nil)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "lab.hcl"), []byte(`lab "x" {}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, ExitUsage, "produce takes one rendered lab directory"},
		{[]string{dir, "--rate", "fast"}, ExitUsage, `--rate takes a positive number of orders per second or max, not "fast"`},
		{[]string{dir, "--rate", "-3"}, ExitUsage, "--rate takes a positive number"},
		{[]string{dir, "--start", "2026-01-01T00:00:00Z"}, ExitUsage, "--start sets the logical clock; use it with --rate max or --sample"},
		{[]string{dir, "--rate", "max", "--start", "yesterday"}, ExitUsage, `"yesterday" is not a time`},
		{[]string{dir, "--count", "-1"}, ExitUsage, "--count must not be negative"},
		{[]string{t.TempDir()}, ExitUsage, "has no lab.json; produce reads a rendered lab directory"},
		{[]string{src}, ExitUsage, "is a lab's source, not a rendered lab; render it first"},
		{[]string{dir, "--sample", "1", "--producer", "nope"}, ExitUsage, `the lab has no producer "nope" (it has: shop)`},
		{[]string{dir}, ExitUsage, ".env not found: it holds the producer's MySQL user (MYSQL_APP_USER, MYSQL_APP_PASSWORD)"},
		{[]string{dir, "--mysql", "not a dsn"}, ExitUsage, "--mysql \"not a dsn\": want HOST:PORT"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, "", nil, append([]string{"produce"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("produce %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.msg)
		}
	}
}

func TestProduceHelp(t *testing.T) {
	code, stdout, _ := run(t, "", nil, "produce", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--rate max", "--sample 10", "backfills one hour", "Ctrl-C", "$LABGEN_MYSQL_DSN", "-count N", "-seed S"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

// TestProduceDSNDefaults: without --mysql the producer goes to 127.0.0.1
// at the lab's MySQL port and database, as the .env's app user;
// $LABGEN_MYSQL_DSN and --mysql override it (here all point at closed
// ports, so each run fails with one line naming where it went).
func TestProduceDSNDefaults(t *testing.T) {
	dir := seedLab(t, "MYSQL_APP_USER=lab_app\nMYSQL_APP_PASSWORD='app secret'\n", nil)
	lab, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := producerEndpoint(&Env{}, lab, produceOpts{}, "mysql")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:3306" || cfg.Database != "shop" || cfg.User != "lab_app" || cfg.Password != "app secret" {
		t.Errorf("default MySQL: %+v", cfg)
	}

	envAddr, flagAddr := closedPort(t), closedPort(t)
	environ := []string{DSNEnvVar + "=mysql://env_user:pw@" + envAddr + "/envdb"}
	code, _, stderr := run(t, "", environ, "produce", dir, "--count", "1")
	if code != ExitRunFailed || !strings.Contains(stderr, "cannot reach MySQL at "+envAddr) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("$%s: exit %d, stderr:\n%s", DSNEnvVar, code, stderr)
	}
	code, _, stderr = run(t, "", environ, "produce", dir, "--count", "1", "--mysql", "tcp("+flagAddr+")/flagdb")
	if code != ExitRunFailed || !strings.Contains(stderr, "cannot reach MySQL at "+flagAddr) {
		t.Errorf("--mysql: exit %d, stderr:\n%s", code, stderr)
	}
	// A DSN without a user takes the .env's.
	cfg, err = producerEndpoint(&Env{}, lab, produceOpts{dsn: "tcp(" + flagAddr + ")/flagdb"}, "mysql")
	if err != nil || cfg.User != "lab_app" || cfg.Database != "flagdb" {
		t.Errorf("DSN without a user: %+v, %v", cfg, err)
	}

	noUser := seedLab(t, "MYSQL_ROOT_PASSWORD=x\n", nil)
	code, _, stderr = run(t, "", nil, "produce", noUser)
	if code != ExitUsage || !strings.Contains(stderr, "has no MYSQL_APP_USER") {
		t.Errorf(".env without the app user: exit %d, stderr:\n%s", code, stderr)
	}
}
