package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// produceDir is a rendered lab directory as produce reads it: the seed
// lab's lab.json and, if dotenv is not empty, a .env.
func produceDir(t *testing.T, dotenv string) string {
	t.Helper()
	p := schemas.NewParser()
	lab, diags := p.Load("../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b, err := schemas.MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if dotenv != "" {
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func produceRun(t *testing.T, ctx context.Context, environ []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""), Environ: environ}
	code := RunEnv(ctx, append([]string{"produce"}, args...), env)
	return code, stdout.String(), stderr.String()
}

func TestProduceSampleDeterministic(t *testing.T) {
	dir := produceDir(t, "")
	ctx := context.Background()
	code, a, stderr := produceRun(t, ctx, nil, dir, "--sample", "500")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, b, _ := produceRun(t, ctx, nil, dir, "--sample", "500")
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

	_, c, _ := produceRun(t, ctx, nil, dir, "--sample", "500", "--seed", "2")
	if c == a {
		t.Error("--seed 2 prints the same lines as the lab's seed")
	}
	_, d, _ := produceRun(t, ctx, nil, dir, "--sample", "3", "--start", "2026-05-01T12:00:00Z", "--rate", "max")
	if !strings.Contains(d, `"created_at":"2026-05-01 12:00:00.000"`) {
		t.Errorf("--start does not set the clock:\n%s", d)
	}
	// --sample needs no database: nothing about MySQL, no .env.
	if stderr != "" {
		t.Errorf("--sample wrote to stderr: %s", stderr)
	}
}

func TestProduceUsage(t *testing.T) {
	dir := produceDir(t, "")
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
		{[]string{dir, "--mysql", "not a dsn"}, ExitUsage, "--mysql: invalid MySQL DSN"},
	}
	for _, c := range cases {
		code, _, stderr := produceRun(t, context.Background(), nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("produce %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.msg)
		}
	}
}

func TestProduceHelp(t *testing.T) {
	code, stdout, _ := produceRun(t, context.Background(), nil, "--help")
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
	dir := produceDir(t, "MYSQL_APP_USER=lab_app\nMYSQL_APP_PASSWORD='app secret'\n")
	lab, err := schemas.ReadLabJSON(filepath.Join(dir, "lab.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysqlConfig(&Env{}, lab, produceOpts{dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:3306" || cfg.DBName != "shop" || cfg.User != "lab_app" || cfg.Passwd != "app secret" {
		t.Errorf("default MySQL: %s@%s/%s (password %q)", cfg.User, cfg.Addr, cfg.DBName, cfg.Passwd)
	}

	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	envAddr, flagAddr := closed(), closed()
	environ := []string{DSNEnvVar + "=mysql://env_user:pw@" + envAddr + "/envdb"}
	code, _, stderr := produceRun(t, context.Background(), environ, dir, "--count", "1")
	if code != ExitRunFailed || !strings.Contains(stderr, "cannot reach MySQL at "+envAddr) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("$%s: exit %d, stderr:\n%s", DSNEnvVar, code, stderr)
	}
	code, _, stderr = produceRun(t, context.Background(), environ, dir, "--count", "1", "--mysql", "tcp("+flagAddr+")/flagdb")
	if code != ExitRunFailed || !strings.Contains(stderr, "cannot reach MySQL at "+flagAddr) {
		t.Errorf("--mysql: exit %d, stderr:\n%s", code, stderr)
	}
	// A DSN without a user takes the .env's.
	cfg, err = mysqlConfig(&Env{}, lab, produceOpts{dir: dir, dsn: "tcp(" + flagAddr + ")/flagdb"})
	if err != nil || cfg.User != "lab_app" || cfg.DBName != "flagdb" {
		t.Errorf("DSN without a user: %+v, %v", cfg, err)
	}

	noUser := produceDir(t, "MYSQL_ROOT_PASSWORD=x\n")
	code, _, stderr = produceRun(t, context.Background(), nil, noUser)
	if code != ExitUsage || !strings.Contains(stderr, "has no MYSQL_APP_USER") {
		t.Errorf(".env without the app user: exit %d, stderr:\n%s", code, stderr)
	}
}
