package native_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/runtime/query"
)

var chUsers = native.ClickHouseUsers{Admin: "lab_admin", AdminPassword: "adm", Reader: "lab_reader", ReaderPassword: "rd"}

// chdbPython is the cached venv's interpreter; the first run creates it
// (a minute or two), later runs find it.
func chdbPython(t *testing.T) string {
	t.Helper()
	mode := os.Getenv("LABGEN_TEST_SERVERS")
	if mode == "off" {
		t.Skip("LABGEN_TEST_SERVERS=off")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	py, err := native.EnsureChdb(ctx, func(s string) { t.Log(s) })
	if err != nil {
		if mode != "require" && strings.Contains(err.Error(), "install Debian package") {
			t.Skipf("%v (set LABGEN_TEST_SERVERS=require to fail instead)", err)
		}
		t.Fatal(err)
	}
	t.Logf("EnsureChdb: %s", time.Since(start).Round(time.Millisecond))
	return py
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// front is a running front.py, started as the native Service says.
type front struct {
	cmd  *exec.Cmd
	port int
	log  string
	done chan error
}

func startFront(t *testing.T, lay native.Layout, py string, port int, schema string) *front {
	t.Helper()
	svc := native.ClickHouseService(lay, py, port, []byte(schema), chUsers)
	for path, b := range svc.Files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &front{port: port, log: filepath.Join(lay.State, fmt.Sprintf("front-%d.log", time.Now().UnixNano())), done: make(chan error, 1)}
	out, err := os.Create(f.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	f.cmd = exec.Command(svc.Argv[0], svc.Argv[1:]...)
	f.cmd.Env = append(os.Environ(), svc.Env...)
	f.cmd.Stdout, f.cmd.Stderr = out, out
	start := time.Now()
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { f.done <- f.cmd.Wait() }()
	t.Cleanup(func() { f.stop(t) })
	for {
		resp, err := http.Get(svc.Health.HTTP)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case err := <-f.done:
			f.done <- err
			t.Fatalf("front.py exited (%v):\n%s", err, readFile(f.log))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("front.py not healthy after a minute:\n%s", readFile(f.log))
		}
	}
	t.Logf("front.py healthy in %s", time.Since(start).Round(time.Millisecond))
	return f
}

// stop sends SIGTERM and waits for a clean exit.
func (f *front) stop(t *testing.T) {
	if f.cmd.ProcessState != nil || f.cmd.Process == nil {
		return
	}
	select {
	case err := <-f.done:
		f.done <- err
		return
	default:
	}
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-f.done:
		f.done <- err
		if err != nil {
			t.Errorf("front.py after SIGTERM: %v\n%s", err, readFile(f.log))
		}
	case <-time.After(20 * time.Second):
		_ = f.cmd.Process.Kill()
		t.Errorf("front.py ignored SIGTERM:\n%s", readFile(f.log))
	}
}

// admin runs statements as the admin user over plain HTTP.
func (f *front) admin(t *testing.T, sql string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/", f.port), strings.NewReader(sql))
	req.SetBasicAuth(chUsers.Admin, chUsers.AdminPassword)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: HTTP %d %s", sql, resp.StatusCode, b)
	}
	return string(b)
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

func openReader(t *testing.T, port int, user, password string) query.Engine {
	e, err := query.OpenClickHouse(query.ClickHouseOptions{Protocol: query.ClickHouseHTTP,
		Addr: fmt.Sprintf("127.0.0.1:%d", port), Database: "lab", User: user, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestChdbFrontOverHTTP(t *testing.T) {
	py := chdbPython(t)
	dir := t.TempDir()
	lay, err := native.NewLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	f := startFront(t, lay, py, port, "")
	f.admin(t, "CREATE DATABASE IF NOT EXISTS lab")
	f.admin(t, "CREATE TABLE lab.t (id Int64, amount Decimal(12, 2), at DateTime64(3), note Nullable(String), name String) ENGINE = MergeTree ORDER BY id")
	f.admin(t, "INSERT INTO lab.t VALUES (1, 12.5, '2026-01-01 10:00:00.100', 'x', 'a'), (2, 3, '2026-01-02 11:00:00', NULL, 'b')")

	ctx := context.Background()
	e := openReader(t, port, chUsers.Reader, chUsers.ReaderPassword)
	start := time.Now()
	res, err := e.Query(ctx, "SELECT id, amount, at, note, name FROM t ORDER BY id", query.Limits{})
	if err != nil {
		t.Fatalf("%v\n%s", err, readFile(f.log))
	}
	t.Logf("first query (HTTP hello + read-only check + query): %s", time.Since(start).Round(time.Millisecond))
	var types []string
	for _, c := range res.Columns {
		types = append(types, c.Type)
	}
	if got := strings.Join(types, ","); got != "Int64,Decimal(12, 2),DateTime64(3),Nullable(String),String" {
		t.Errorf("types %s", got)
	}
	got, _ := json.Marshal(res.Rows)
	want := `[[1,12.50,"2026-01-01 10:00:00.100","x","a"],[2,3.00,"2026-01-02 11:00:00.000",null,"b"]]`
	if string(got) != want {
		t.Errorf("rows\n got %s\nwant %s", got, want)
	}
	start = time.Now()
	const n = 20
	for range n {
		if _, err := e.Query(ctx, "SELECT count() FROM t", query.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("query round trip over HTTP: %s", (time.Since(start) / n).Round(time.Microsecond))

	// Limits behave as over the native protocol.
	res, err = e.Query(ctx, "SELECT number FROM system.numbers LIMIT 50", query.Limits{MaxRows: 10})
	if err != nil || len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("limited: %d rows, truncated %v, %v", len(res.Rows), res != nil && res.Truncated, err)
	}

	// An empty result keeps its columns, as ClickHouse's header block does.
	res, err = e.Query(ctx, "SELECT id, note FROM t WHERE id < 0", query.Limits{})
	if err != nil || len(res.Rows) != 0 || len(res.Columns) != 2 || res.Columns[0].Name != "id" || res.Columns[1].Type != "Nullable(String)" {
		t.Errorf("empty result: %+v, %v", res, err)
	}

	// ClickHouse's words and code survive.
	_, err = e.Query(ctx, "SELECT nope FROM t", query.Limits{})
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 47 || !strings.Contains(err.Error(), "Unknown expression identifier `nope`") {
		t.Errorf("unknown column: %v", err)
	}

	// The reader, and any labgen session, is read-only.
	for _, user := range []struct{ name, password string }{{chUsers.Reader, chUsers.ReaderPassword}, {chUsers.Admin, chUsers.AdminPassword}} {
		e := openReader(t, port, user.name, user.password)
		for _, q := range []string{"INSERT INTO t (id, name) VALUES (3, 'c')", "CREATE TABLE u (x Int8) ENGINE = Memory"} {
			_, err := e.Query(ctx, q, query.Limits{})
			if !errors.As(err, &ex) || ex.Code != 164 {
				t.Errorf("%s as %s: want READONLY (164), got %v", q, user.name, err)
			}
		}
	}
	if got := f.admin(t, "SELECT count() FROM lab.t"); got != "2\n" {
		t.Errorf("rows after refused writes: %q", got)
	}
	// A wrong password is ClickHouse's AUTHENTICATION_FAILED.
	if _, err := openReader(t, port, chUsers.Reader, "wrong").Query(ctx, "SELECT 1", query.Limits{}); err == nil || !strings.Contains(err.Error(), "Authentication failed") {
		t.Errorf("wrong password: %v", err)
	}
}

// TestChdbFrontRestart: data survives a restart, and a path holding
// Kafka-engine tables (which chdb cannot reload) opens again, the schema
// re-creating them, with no broker reachable.
func TestChdbFrontRestart(t *testing.T) {
	py := chdbPython(t)
	dir := t.TempDir()
	lay, err := native.NewLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	dead := freePort(t) // nothing listens there: the broker is unreachable
	schema := fmt.Sprintf(`-- a lab's schema, as rendered
CREATE DATABASE IF NOT EXISTS lab;
CREATE TABLE IF NOT EXISTS lab.t (id Int64, name String) ENGINE = ReplacingMergeTree ORDER BY id;
-- the queue
CREATE TABLE IF NOT EXISTS lab.t_queue (id Int64, name String)
ENGINE = Kafka
SETTINGS kafka_broker_list = '127.0.0.1:%d', kafka_topic_list = 't', kafka_group_name = 'g', kafka_format = 'JSONEachRow';
CREATE MATERIALIZED VIEW IF NOT EXISTS lab.t_mv TO lab.t AS SELECT id, name FROM lab.t_queue;
`, dead)

	f := startFront(t, lay, py, port, schema)
	f.admin(t, "INSERT INTO lab.t VALUES (1, 'a')")
	f.stop(t)
	for round := 1; round <= 2; round++ {
		f = startFront(t, lay, py, port, schema)
		tables := f.admin(t, "SELECT name, engine FROM system.tables WHERE database = 'lab' ORDER BY name")
		if tables != "t\tReplacingMergeTree\nt_mv\tMaterializedView\nt_queue\tKafka\n" {
			t.Errorf("restart %d: tables\n%s\n%s", round, tables, readFile(f.log))
		}
		res, err := openReader(t, port, chUsers.Reader, chUsers.ReaderPassword).Query(context.Background(), "SELECT id, name FROM t FINAL", query.Limits{})
		if err != nil || len(res.Rows) != 1 {
			t.Errorf("restart %d: %v %v", round, res, err)
		}
		if !strings.Contains(readFile(f.log), "moved the Kafka-engine tables lab.t_queue aside") {
			t.Errorf("restart %d: the log does not say the Kafka table was moved aside:\n%s", round, readFile(f.log))
		}
		f.stop(t)
	}
}
