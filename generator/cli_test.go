package generator_test

// The produce command end to end against MariaDB. It lives here rather
// than in package cli so that it shares this package's TestMain, which
// stops the test servers.

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labgen/labgen/cli"
	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// lockedBuffer is written by the progress goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// renderedDir writes the seed lab's lab.json, pointed at the test server
// and database, and a .env with the app user, as labgen render would.
func renderedDir(t *testing.T, srv *testsrv.MariaDBServer, database, user, password string, tables bool) string {
	t.Helper()
	p := schemas.NewParser()
	lab, diags := p.Load("../labs/orders", schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	lab.Stack.MySQL.Port = srv.Port()
	lab.Stack.MySQL.Database = database
	b, err := schemas.MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "lab.json"), b, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".env"), []byte("MYSQL_APP_USER="+user+"\nMYSQL_APP_PASSWORD="+password+"\n"), 0o600))
	if tables {
		db, err := sql.Open("mysql", srv.DSN("root", "", database))
		must(t, err)
		defer db.Close()
		for _, q := range []string{
			"CREATE TABLE orders (order_id BIGINT NOT NULL PRIMARY KEY, customer_id BIGINT NOT NULL, category VARCHAR(32) NOT NULL, order_amount DECIMAL(12,2) NOT NULL, order_status VARCHAR(16) NOT NULL, created_at DATETIME(3) NOT NULL, updated_at DATETIME(3) NOT NULL)",
			"CREATE TABLE payments (payment_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, payment_status VARCHAR(16) NOT NULL, amount DECIMAL(12,2) NOT NULL, paid_at DATETIME(3) NULL, updated_at DATETIME(3) NOT NULL)",
		} {
			_, err := db.Exec(q)
			must(t, err)
		}
	}
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func produce(ctx context.Context, terminal bool, args ...string) (int, string, string) {
	var stdout, stderr lockedBuffer
	env := &cli.Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""), Terminal: terminal}
	code := cli.RunEnv(ctx, append([]string{"produce"}, args...), env)
	return code, stdout.String(), stderr.String()
}

func count(t *testing.T, srv *testsrv.MariaDBServer, database, table string) int64 {
	t.Helper()
	db, err := sql.Open("mysql", srv.DSN("root", "", database))
	must(t, err)
	defer db.Close()
	var n int64
	must(t, db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
	return n
}

// TestProduceCommand runs labgen produce as a user would: the MySQL
// address from lab.json, the user from .env.
func TestProduceCommand(t *testing.T) {
	srv := testsrv.MariaDB(t)
	database, _ := srv.NewDatabase(t)
	user, password := srv.NewUser(t, "SELECT, INSERT, UPDATE, DELETE ON "+database+".*")
	dir := renderedDir(t, srv, database, user, password, true)

	code, stdout, stderr := produce(context.Background(), false, dir, "--rate", "max", "--count", "3000")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "Wrote 3,000 orders and ") || !strings.Contains(stdout, " payments (FAILED ") || !strings.Contains(stderr, "producing into "+user+"@127.0.0.1:"+strconv.Itoa(srv.Port())+"/"+database) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if n := count(t, srv, database, "orders"); n != 3000 {
		t.Errorf("%d orders, want 3000", n)
	}

	// Interrupted (SIGINT cancels the context): exit 0, buffered rows
	// written, the run resumed after the 3000 orders already there. On a
	// terminal, a live progress line.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	code, stdout, stderr = produce(ctx, true, dir, "--rate", "40")
	cancel()
	if code != cli.ExitOK {
		t.Fatalf("interrupted: exit %d\n%s\n%s", code, stdout, stderr)
	}
	n := count(t, srv, database, "orders")
	if n < 3050 || n > 3070 {
		t.Errorf("%d orders after 1.5s at 40/s on top of 3000", n)
	}
	for _, want := range []string{"\r\033[K", "orders/s", "shop: resuming after the 3,000 rows already in orders", "follow-ups were not due yet"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
}

func TestProduceCommandErrors(t *testing.T) {
	srv := testsrv.MariaDB(t)
	database, _ := srv.NewDatabase(t)
	user, password := srv.NewUser(t, "SELECT, INSERT, UPDATE ON "+database+".*")
	dir := renderedDir(t, srv, database, user, password, false)
	code, _, stderr := produce(context.Background(), false, dir, "--count", "10")
	if code != cli.ExitRunFailed || !strings.Contains(stderr, "table orders does not exist in database") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("missing table: exit %d, stderr:\n%s", code, stderr)
	}
	bad := renderedDir(t, srv, database, user, "wrong", false)
	code, _, stderr = produce(context.Background(), false, bad, "--count", "10")
	if code != cli.ExitRunFailed || !strings.Contains(stderr, "refused user") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("wrong password: exit %d, stderr:\n%s", code, stderr)
	}
}
