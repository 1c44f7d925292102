package linkproxy

import (
	"database/sql"
	"net"
	"net/http"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestSlowLinkToMariaDB: a real MariaDB behind the proxy, read through
// it. Slowed, every answer comes at least the added latency later and
// whole (a thousand rows, none lost); restored, at once again. This is
// the link a latency control slows: MySQL's bytes on their way to Flink.
func TestSlowLinkToMariaDB(t *testing.T) {
	db := testsrv.MariaDB(t)
	api, listen := freeAddr(t), freeAddr(t)
	go func() { t.Log(Serve(api, []Link{{Name: "mysql_flink", Listen: listen, Upstream: db.Addr()}})) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + api + "/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy's API did not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	conn, err := sql.Open("mysql", "root@tcp("+listen+")/mysql")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	count := func() (int, time.Duration) {
		t.Helper()
		start := time.Now()
		var n int
		if err := conn.QueryRow("SELECT COUNT(*) FROM (SELECT seq FROM seq_1_to_1000) AS s").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n, time.Since(start)
	}
	if n, took := count(); n != 1000 || took > time.Second {
		t.Fatalf("through the proxy, unslowed: %d rows in %s", n, took)
	}
	const add = 1500 * time.Millisecond
	if err := Slow(api, "mysql_flink", add); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rows, err := conn.Query("SELECT seq FROM seq_1_to_1000")
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rows.Next() {
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if took := time.Since(start); got != 1000 || took < add {
		t.Errorf("slowed by %s: %d rows in %s", add, got, took)
	}
	if err := Restore(api, "mysql_flink"); err != nil {
		t.Fatal(err)
	}
	if n, took := count(); n != 1000 || took > time.Second {
		t.Errorf("restored: %d rows in %s", n, took)
	}
	// Restoring twice leaves the link as it is.
	if err := Restore(api, "mysql_flink"); err != nil {
		t.Error(err)
	}
	if err := Slow(api, "no_such_link", add); err == nil {
		t.Error("a link the proxy does not have was slowed")
	}
}
