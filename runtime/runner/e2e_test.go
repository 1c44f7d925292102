package runner

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden records in testdata")

// childEnv carries the configuration of a run in a child process (the
// test binary started again), so that the test can kill it.
const childEnv = "LABGEN_RUNNER_TEST_CHILD"

type childConfig struct {
	LabDir, RecordsDir, ID string
}

func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	testsrv.Main(m)
}

// runChild runs a lab as labgen run would, in this process.
func runChild(cfgJSON string) int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	lab, err := labdir.Load(cfg.LabDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r, err := New(Options{Lab: lab, Endpoints: lab.Endpoints(nil), RecordsDir: cfg.RecordsDir, ID: cfg.ID, Version: "test"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if rec.Failed() {
		return 3
	}
	return 0
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// e2eLab renders testdata/e2e against this test's servers: MariaDB and
// ClickHouse databases of its own, a kfake cluster, the reader users.
type e2eLab struct {
	dir      string
	mysql    *sql.DB // root on the test database
	password string  // the MySQL reader's
	names    map[string]string
}

func setupE2E(t *testing.T) *e2eLab {
	t.Helper()
	maria := testsrv.MariaDB(t)
	ch := testsrv.ClickHouse(t)
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "wide"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)

	p := schemas.NewParser()
	lab, diags := p.Load("testdata/e2e", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	myDB, rootDSN := maria.NewDatabase(t)
	chDB, _ := ch.NewDatabase(t)
	reader, password := maria.NewUser(t, "SELECT ON `"+myDB+"`.*")
	lab.Stack.MySQL.Database, lab.Stack.MySQL.Port = myDB, maria.Port()
	lab.Stack.ClickHouse.Database = chDB
	lab.Stack.ClickHouse.TCPPort = portOf(t, ch.NativeAddr())
	kaddr := kc.ListenAddrs()[0]
	lab.Stack.Kafka.Port = portOf(t, kaddr)
	for _, tb := range lab.Tables {
		for _, st := range tb.Stores {
			switch st.Kind {
			case schemas.StoreMySQL:
				st.Database = myDB
			case schemas.StoreClickHouse:
				st.Database = chDB
			}
		}
	}
	dir, files := renderLab(t, lab)
	editEnv(t, dir, func(env map[string]string) {
		env["MYSQL_READER_USER"], env["MYSQL_READER_PASSWORD"] = reader, password
		env["CLICKHOUSE_READER_USER"], env["CLICKHOUSE_READER_PASSWORD"] = testsrv.ClickHouseReadOnlyUser, ""
	})

	// Data: three orders, payments for two of them (order 2 waits).
	root, err := sql.Open("mysql", rootDSN+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	if _, err := root.Exec(string(files["sql/mysql/schema.sql"])); err != nil {
		t.Fatalf("rendered schema: %v", err)
	}
	if _, err := root.Exec(`INSERT INTO orders (order_id, category) VALUES (1, 'books'), (2, 'home'), (3, 'toys');
INSERT INTO payments (payment_id, order_id, payment_status) VALUES (10, 1, 'PAID'), (11, 3, 'FAILED')`); err != nil {
		t.Fatal(err)
	}
	ch.Exec(t, "CREATE TABLE "+chDB+".wide (order_id Int64, payment_status Nullable(String), version UInt32) ENGINE = MergeTree ORDER BY (order_id, version)")
	ch.Exec(t, "INSERT INTO "+chDB+".wide VALUES (1, 'PAID', 2), (2, 'PENDING', 1), (3, NULL, 1)")

	cl, err := kgo.NewClient(kgo.SeedBrokers(kaddr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rec := func(p int32, sec int, key, value string) *kgo.Record {
		r := &kgo.Record{Topic: "wide", Partition: p, Timestamp: t0.Add(time.Duration(sec) * time.Second), Key: []byte(key)}
		if value != "" {
			r.Value = []byte(value)
		}
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx,
		rec(1, 1, `{"order_id":1}`, `{"order_id":1,"payment_status":"PENDING"}`),
		rec(0, 2, `{"order_id":2}`, `{"order_id":2,"payment_status":"PENDING"}`),
		rec(1, 3, `{"order_id":1}`, ""),
		rec(1, 4, `{"order_id":1}`, `{"order_id":1,"payment_status":"PAID"}`),
		rec(0, 5, `{"order_id":2}`, ""),
		rec(2, 6, `{"order_id":2}`, `{"order_id":2,"payment_status":"PENDING","note":"a|b"}`),
	).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return &e2eLab{dir: dir, mysql: root, password: password, names: map[string]string{
		myDB: "<mysql-db>", chDB: "<clickhouse-db>", reader: "<reader>", kaddr: "<kafka>", maria.Addr(): "<mysql>", ch.NativeAddr(): "<clickhouse>",
	}}
}

// TestEndToEnd runs testdata/e2e in a child process, inserts the awaited
// payment while it waits, kills the child (SIGKILL) during a later wait,
// resumes the record in this process and compares it with the golden
// records after masking what differs between runs.
func TestEndToEnd(t *testing.T) {
	lab := setupE2E(t)
	records := t.TempDir()
	cfg, _ := json.Marshal(childConfig{LabDir: lab.dir, RecordsDir: records, ID: "e2e"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(cfg))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	dir := filepath.Join(records, "e2e")
	inserted := false
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("the run ended before it could be killed: %v\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not reach experiment 3 in time\n%s", stderr.String())
		}
		rec, err := record.Read(dir)
		if err != nil {
			continue // not written yet
		}
		pay := rec.Experiment("payment")
		if pay != nil && len(pay.Steps) >= 1 && !inserted {
			// The run now waits for order 2's payment: let it arrive.
			inserted = true
			go func() {
				time.Sleep(time.Second)
				if _, err := lab.mysql.Exec("INSERT INTO payments (payment_id, order_id, payment_status) VALUES (12, 2, 'PAID')"); err != nil {
					t.Errorf("inserting the payment: %v", err)
				}
			}()
		}
		if pay != nil && pay.Status == record.ExpDone {
			break
		}
	}
	// Experiment 3 starts with a 4 s wait: kill the run inside it.
	time.Sleep(700 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited

	killed, err := record.Read(dir)
	if err != nil {
		t.Fatalf("the killed run's record: %v", err)
	}
	if killed.Status != record.RunRunning || killed.Experiment("payment").Status != record.ExpDone {
		t.Fatalf("killed record: status %s", killed.Status)
	}
	if l := killed.Experiment("later"); l != nil && len(l.Steps) > 0 {
		t.Fatalf("the kill came too late: experiment later has %d steps", len(l.Steps))
	}
	if _, err := os.Stat(filepath.Join(dir, record.MarkdownName)); err != nil {
		t.Fatal(err)
	}

	// Resume here.
	l, err := labdir.Load(lab.dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Lab: l, Endpoints: l.Endpoints(nil), Resume: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != record.RunFinished || len(rec.Sessions) != 2 || !rec.Failed() {
		t.Fatalf("resumed record: status %s, %d sessions, failed %v", rec.Status, len(rec.Sessions), rec.Failed())
	}
	for _, name := range []string{record.JSONName, record.MarkdownName} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), lab.password) {
			t.Errorf("%s holds the reader's password", name)
		}
		if name == record.JSONName {
			b = withoutSamples(t, b)
		}
		compareGolden(t, filepath.Join("testdata", "e2e", "golden."+name), lab.mask(string(b)))
	}
}

var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`), "<time>"},
	{regexp.MustCompile(`"duration_ms": \d+`), `"duration_ms": 0`},
	{regexp.MustCompile(`took [0-9.]+ (ms|s)|took \d+m\d+s`), "took <d>"},
	{regexp.MustCompile(`\(\d+(\.\d)? (ms|s)\)|\(\d+m\d+s\)`), "(<d>)"},
	{regexp.MustCompile(`sha256:[0-9a-f]{64}`), "sha256:<hash>"},
	{regexp.MustCompile(`"attempts": \d+`), `"attempts": 0`},
	{regexp.MustCompile(`\d+ run\(s\)`), "<n> run(s)"},
	{regexp.MustCompile(`on run \d+, after \d+s`), "on run <n>, after <d>"},
	{regexp.MustCompile(`\(\d+ runs\)`), "(<n> runs)"},
	{regexp.MustCompile(`"elapsed_ms": \d+`), `"elapsed_ms": 0`},
	{regexp.MustCompile(`"dir": "[^"]*"`), `"dir": "<dir>"`},
}

func (l *e2eLab) mask(s string) string {
	for name, with := range l.names {
		s = strings.ReplaceAll(s, name, with)
	}
	s = strings.ReplaceAll(s, l.dir, "<lab>")
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the run (go test -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, a, c)
			if shown++; shown >= 8 {
				break
			}
		}
	}
	return b.String()
}

// withoutSamples drops the samples of the record's steps, whose number and
// times depend on the machine's pace, after checking that every re-run
// step kept one sample per run.
func withoutSamples(t *testing.T, b []byte) []byte {
	t.Helper()
	var rec record.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Experiments {
		for _, s := range e.Steps {
			if s.Attempts > 0 && len(s.Samples) != s.Attempts {
				t.Errorf("step %s: %d samples of %d runs", s.Name, len(s.Samples), s.Attempts)
			}
			s.Samples, s.Sampled = nil, ""
		}
	}
	out, err := record.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
