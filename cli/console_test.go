package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

const consoleEnv = `# rendered
MYSQL_APP_USER=lab_app
MYSQL_APP_PASSWORD=app-secret
MYSQL_READER_USER=lab_reader
MYSQL_READER_PASSWORD="reader secret"
CLICKHOUSE_USER=lab_admin
CLICKHOUSE_PASSWORD=admin-secret
CLICKHOUSE_READER_USER=ch_reader
CLICKHOUSE_READER_PASSWORD=ch-secret
`

var consoleDefaults = consoleOptions{maxRows: 1000, timeout: 30 * time.Second}

func TestConsoleDefaults(t *testing.T) {
	out := seedLab(t, consoleEnv, func(l *schemas.Lab) {
		l.Stack.MySQL.Port = 13306
		l.Stack.ClickHouse.TCPPort = 19000
		l.Stack.Console.Port = 18088
	})
	s, err := resolveConsole(out, consoleDefaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.listen != "127.0.0.1:18088" {
		t.Errorf("listen %q", s.listen)
	}
	cfg := s.endpoints.DB[query.MySQL]
	if cfg.User != "lab_reader" || cfg.Password != "reader secret" || cfg.Addr != "127.0.0.1:13306" || cfg.Database != "shop" {
		t.Errorf("MySQL %+v", cfg)
	}
	if c, ok := s.endpoints.DB[query.ClickHouse]; !ok || c.Addr != "127.0.0.1:19000" || c.User != "ch_reader" || c.Password != "ch-secret" || c.Database != "analytics" {
		t.Errorf("ClickHouse %+v", c)
	}
	if shown := cfg.Short() + s.endpoints.DB[query.ClickHouse].Short(); strings.Contains(shown, "secret") {
		t.Errorf("what is shown carries a password: %s", shown)
	}

	// The environment wins over .env; flags choose other addresses.
	s, err = resolveConsole(out, consoleOptions{maxRows: 1, timeout: time.Second, listen: "0.0.0.0:1", mysql: "mysql:3306", clickhouse: "clickhouse:9000"},
		[]string{"MYSQL_READER_PASSWORD=from-env", "CLICKHOUSE_READER_USER=env_reader"})
	if err != nil {
		t.Fatal(err)
	}
	cfg = s.endpoints.DB[query.MySQL]
	if s.listen != "0.0.0.0:1" || cfg.Addr != "mysql:3306" || cfg.Password != "from-env" || cfg.User != "lab_reader" {
		t.Errorf("listen %q, MySQL %+v", s.listen, cfg)
	}
	if c := s.endpoints.DB[query.ClickHouse]; c.Addr != "clickhouse:9000" || c.User != "env_reader" {
		t.Errorf("ClickHouse %+v", c)
	}

	// Whole DSNs, as the rendered compose file passes them.
	s, err = resolveConsole(out, consoleOptions{maxRows: 1, timeout: time.Second,
		mysql: "u:p@ss@tcp(mysql:3306)/shop", clickhouse: "clickhouse://r:pw@ch:9000/analytics"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg = s.endpoints.DB[query.MySQL]
	if cfg.User != "u" || cfg.Password != "p@ss" || cfg.Addr != "mysql:3306" || cfg.Short() != "u@mysql:3306/shop" {
		t.Errorf("MySQL DSN %+v, shown %q", cfg, cfg.Short())
	}
	if c := s.endpoints.DB[query.ClickHouse]; c.Addr != "ch:9000" || c.User != "r" || c.Password != "pw" || c.Database != "analytics" {
		t.Errorf("ClickHouse %+v", c)
	}

	// The URL form labgen produce takes works here too.
	s, err = resolveConsole(out, consoleOptions{maxRows: 1, timeout: time.Second, mysql: "mysql://u:pw@db.local:3307/other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.endpoints.DB[query.MySQL]; c.Addr != "db.local:3307" || c.User != "u" || c.Password != "pw" || c.Database != "other" {
		t.Errorf("mysql:// URL %+v", c)
	}

	// Missing users, and a stack without ClickHouse.
	out = seedLab(t, "MYSQL_APP_USER=x\n", func(l *schemas.Lab) { l.Stack.ClickHouse = nil })
	s, err = resolveConsole(out, consoleDefaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.endpoints.DB[query.MySQL]; ok || !strings.Contains(s.endpoints.Missing[query.MySQL], "no MYSQL_READER_USER in "+out+"/.env") {
		t.Errorf("MySQL %+v, unavailable %q", s.endpoints.DB, s.endpoints.Missing)
	}
	if _, ok := s.endpoints.DB[query.ClickHouse]; ok || s.endpoints.Missing[query.ClickHouse] != "the lab's stack has no clickhouse and --clickhouse was not given" {
		t.Errorf("ClickHouse %+v, unavailable %q", s.endpoints.DB, s.endpoints.Missing)
	}
}

// TestConsoleClosedEnv: the console of the compose stack reads the lab
// through a bind mount as its own user, to whom the host user's .env
// (0600) is closed; it starts with its users from the environment.
func TestConsoleClosedEnv(t *testing.T) {
	out := seedLab(t, consoleEnv, nil)
	if err := os.Chmod(filepath.Join(out, ".env"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join(out, ".env")); err == nil {
		t.Skip("this user reads a file of mode 0000 (root)")
	}
	s, err := resolveConsole(out, consoleDefaults, []string{"MYSQL_READER_USER=r", "MYSQL_READER_PASSWORD=pw"})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.endpoints.DB[query.MySQL]; c.User != "r" || c.Password != "pw" {
		t.Errorf("MySQL %+v", c)
	}
}

func TestConsoleUsageErrors(t *testing.T) {
	out := seedLab(t, consoleEnv, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"console"}, "console takes one rendered lab directory"},
		{[]string{"console", t.TempDir()}, "it has no lab.json"},
		{[]string{"console", out, "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"console", out, "--max-rows", "0"}, "--max-rows must be at least 1"},
		{[]string{"console", out, "--clickhouse", "clickhouse://"}, "--clickhouse"},
		{[]string{"console", out, "--mysql", "user@nonsense"}, "--mysql"},
	} {
		code, _, stderr := run(t, "", nil, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, ExitUsage, c.want)
		}
	}
	// No engine at all is a failure to run, not a usage mistake.
	out = seedLab(t, "", func(l *schemas.Lab) { l.Stack.MySQL, l.Stack.ClickHouse = nil, nil })
	code, _, stderr := run(t, "", nil, "console", out, "--listen", "127.0.0.1:0")
	if code != ExitRunFailed || !strings.Contains(stderr, "no engine to query") {
		t.Errorf("no engines: exit %d, stderr %q", code, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe for the console's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The command serves the page and the API until its context ends. The
// databases are not running: the console starts anyway and says so when
// a query needs them.
func TestConsoleServes(t *testing.T) {
	out := seedLab(t, consoleEnv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader("")}
	done := make(chan int, 1)
	go func() {
		done <- RunEnv(ctx, []string{"console", out, "--listen", "127.0.0.1:0", "--mysql", closedPort(t), "--clickhouse", closedPort(t), "--timeout", "5s"}, env)
	}()
	urlRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	var base string
	for deadline := time.Now().Add(20 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		base = urlRe.FindString(stdout.String())
		select {
		case code := <-done:
			t.Fatalf("console exited with %d: %s", code, stderr.String())
		default:
		}
	}
	if base == "" {
		t.Fatalf("no address printed; stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if s := stdout.String(); !strings.Contains(s, `lab "orders"`) || !strings.Contains(s, "MySQL lab_reader@") || strings.Contains(s, "secret") {
		t.Errorf("stdout %q", s)
	}

	get := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return resp.StatusCode, m
	}
	code, m := get("GET", "/api/presets", "")
	if presets, _ := m["presets"].([]any); code != 200 || len(presets) != 7 {
		t.Errorf("presets: %d %v", code, m)
	}
	code, m = get("POST", "/api/query", `{"engine": "mysql", "sql": "DROP TABLE orders"}`)
	if code != 403 || !strings.HasPrefix(m["error"].(string), "Refused: ") {
		t.Errorf("DROP: %d %v", code, m)
	}
	code, m = get("POST", "/api/query", `{"engine": "mysql", "sql": "SELECT 1"}`)
	if msg, _ := m["error"].(string); code != 422 || !strings.Contains(msg, "connection refused") {
		t.Errorf("MySQL down: %d %v", code, m)
	}
	code, m = get("POST", "/api/query", `{"engine": "clickhouse", "sql": "SELECT 1"}`)
	if msg, _ := m["error"].(string); code != 422 || !strings.Contains(msg, "connection refused") {
		t.Errorf("ClickHouse down: %d %v", code, m)
	}
	code, _ = get("GET", "/", "")
	if code != 200 {
		t.Errorf("page: %d", code)
	}

	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d after the context ended; stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the console did not stop when its context ended")
	}
	if s := stderr.String(); !strings.Contains(s, "refused mysql") || strings.Contains(s, "secret") {
		t.Errorf("stderr (the query log) %q", s)
	}
}
