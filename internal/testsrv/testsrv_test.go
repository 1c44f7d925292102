package testsrv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

func TestMain(m *testing.M) {
	code := Run(m)
	// Run must have stopped every shared server and removed its directory.
	var errs []error
	if s := sharedMariaDB.Started(); s != nil {
		errs = append(errs, gone("mariadbd", s.pid, s.dir))
	}
	if s := sharedClickHouse.Started(); s != nil {
		errs = append(errs, gone("clickhouse-server", s.pid, s.dir))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "testsrv: after Run:", err)
		code = 1
	}
	os.Exit(code)
}

// gone checks that no process is left in the server's process group and
// that its directory is removed.
func gone(name string, pid int, dir string) error {
	var errs []error
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		errs = append(errs, fmt.Errorf("%s process group %d still exists (kill: %v)", name, pid, err))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("%s directory %s still exists (stat: %v)", name, dir, err))
	}
	return errors.Join(errs...)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func openMySQL(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMariaDB(t *testing.T) {
	srv := MariaDB(t)
	if again := MariaDB(t); again != srv {
		t.Fatal("second MariaDB call started another server")
	}
	if srv.Host() != "127.0.0.1" || srv.Port() == 0 {
		t.Fatalf("Host/Port = %q/%d", srv.Host(), srv.Port())
	}
	root := openMySQL(t, srv.RootDSN())

	var logBin int
	var format, charset string
	if err := root.QueryRowContext(ctx(t), "SELECT @@log_bin, @@binlog_format, @@character_set_server").Scan(&logBin, &format, &charset); err != nil {
		t.Fatal(err)
	}
	if logBin != 1 || format != "ROW" || charset != "utf8mb4" {
		t.Errorf("log_bin=%d binlog_format=%s character_set_server=%s, want 1 ROW utf8mb4", logBin, format, charset)
	}

	var dbName, user string
	t.Run("database and read-only user", func(t *testing.T) {
		var dsn string
		dbName, dsn = srv.NewDatabase(t)
		db := openMySQL(t, dsn)
		for _, q := range []string{
			"CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(20))",
			"INSERT INTO orders VALUES (1, 'tea'), (2, 'café')",
		} {
			if _, err := db.ExecContext(ctx(t), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}

		var password string
		user, password = srv.NewUser(t, "SELECT ON `"+dbName+"`.*")
		ro := openMySQL(t, srv.DSN(user, password, dbName))
		var item string
		if err := ro.QueryRowContext(ctx(t), "SELECT item FROM orders WHERE id = 2").Scan(&item); err != nil || item != "café" {
			t.Fatalf("read as %s: %q, %v", user, item, err)
		}
		_, err := ro.ExecContext(ctx(t), "INSERT INTO orders VALUES (3, 'x')")
		var merr *mysql.MySQLError
		if !errors.As(err, &merr) || merr.Number != 1142 { // ER_TABLEACCESS_DENIED_ERROR
			t.Fatalf("insert as read-only user: %v, want error 1142", err)
		}
	})

	// The subtest's cleanups have run: its database and user are gone.
	var n int
	if err := root.QueryRowContext(ctx(t),
		"SELECT (SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?) + (SELECT COUNT(*) FROM mysql.user WHERE user = ?)",
		dbName, user).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s or user %s survived the test", dbName, user)
	}
}

func TestClickHouse(t *testing.T) {
	srv := ClickHouse(t)
	if again := ClickHouse(t); again != srv {
		t.Fatal("second ClickHouse call started another server")
	}
	t.Logf("ClickHouse %s", strings.TrimSpace(srv.Exec(t, "SELECT version()")))

	var dbName string
	t.Run("database and read-only user", func(t *testing.T) {
		var dsn string
		dbName, dsn = srv.NewDatabase(t)
		srv.Exec(t, "CREATE TABLE "+dbName+".events (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
		srv.Exec(t, "INSERT INTO "+dbName+".events VALUES (1, 'a'), (2, 'b')")

		db, err := sql.Open("clickhouse", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx(t), "INSERT INTO events SELECT number + 10, 'c' FROM system.numbers LIMIT 3"); err != nil {
			t.Fatal(err)
		}
		var count uint64
		if err := db.QueryRowContext(ctx(t), "SELECT count() FROM events").Scan(&count); err != nil || count != 5 {
			t.Fatalf("count = %d, %v; want 5", count, err)
		}

		ro, err := sql.Open("clickhouse", srv.DSN(ClickHouseReadOnlyUser, dbName))
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if err := ro.QueryRowContext(ctx(t), "SELECT count() FROM events").Scan(&count); err != nil {
			t.Fatalf("read as readonly: %v", err)
		}
		_, err = ro.ExecContext(ctx(t), "INSERT INTO events SELECT 99, 'x'")
		var exc *clickhouse.Exception
		if !errors.As(err, &exc) || exc.Code != 164 { // READONLY
			t.Fatalf("insert as readonly (native): %v, want code 164", err)
		}
		if _, err := srv.Query(ctx(t), ClickHouseReadOnlyUser, dbName, "INSERT INTO events VALUES (99, 'x')"); err == nil || !strings.Contains(err.Error(), "readonly") {
			t.Fatalf("insert as readonly (HTTP): %v, want readonly error", err)
		}
	})

	if got := srv.Exec(t, "SELECT count() FROM system.databases WHERE name = '"+dbName+"'"); strings.TrimSpace(got) != "0" {
		t.Errorf("database %s survived the test", dbName)
	}
}

// TestClickHouseDriver pins what the package doc says about clickhouse-go v2
// against the Debian server.
func TestClickHouseDriver(t *testing.T) {
	srv := ClickHouse(t)
	name, _ := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE "+name+".t (id UInt64, at DateTime, note Nullable(String)) ENGINE = MergeTree ORDER BY id")
	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{srv.NativeAddr()}, Auth: clickhouse.Auth{Database: name}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	batch, err := conn.PrepareBatch(ctx(t), "INSERT INTO t (id, at, note)")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	note := "n"
	if err := batch.Append(uint64(1), at, &note); err != nil {
		t.Fatal(err)
	}
	if err := batch.Append(uint64(2), at, nil); err != nil {
		t.Fatal(err)
	}
	if err := batch.Send(); err != nil {
		t.Fatalf("PrepareBatch/Send: %v", err)
	}

	rows, err := conn.Query(ctx(t), "SELECT id, at, note FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id uint64
		var ts time.Time
		var n *string
		if err := rows.Scan(&id, &ts, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %v", id, ts.UTC().Format(time.RFC3339), n != nil))
	}
	rows.Close()
	if want := "1 2024-05-06T07:08:09Z true|2 2024-05-06T07:08:09Z false"; strings.Join(got, "|") != want {
		t.Errorf("rows = %q, want %q", strings.Join(got, "|"), want)
	}

	// The known hang: inline VALUES through the driver never completes.
	hangCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err = conn.Exec(hangCtx, "INSERT INTO t VALUES (3, now(), NULL)")
	if err == nil {
		t.Log("INSERT … VALUES through clickhouse-go worked: the package doc is out of date")
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("INSERT … VALUES through clickhouse-go: %v (the package doc expects a hang)", err)
	}
}

// TestStopLeavesNothing starts private servers (not the shared ones) and
// checks that stopping them leaves no process and no directory.
func TestStopLeavesNothing(t *testing.T) {
	t.Run("mariadb", func(t *testing.T) {
		t.Parallel()
		bins := binaries(t, "mariadb-server", "mariadbd", "mariadb-install-db")
		start := time.Now()
		srv, stop, err := startMariaDB(bins[0], bins[1])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("MariaDB started in %s (install + start + ready)", time.Since(start).Round(time.Millisecond))
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if err := gone("mariadbd", srv.pid, srv.dir); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("clickhouse", func(t *testing.T) {
		t.Parallel()
		bins := binaries(t, "clickhouse-server", "clickhouse-server")
		start := time.Now()
		srv, stop, err := startClickHouse(bins[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ClickHouse started in %s", time.Since(start).Round(time.Millisecond))
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if err := gone("clickhouse-server", srv.pid, srv.dir); err != nil {
			t.Fatal(err)
		}
	})
}

// fakeTB records Skip and Fatal instead of acting on them. Both end the
// calling goroutine, as the real ones do.
type fakeTB struct {
	testing.TB
	outcome string
}

func (f *fakeTB) Helper()                       {}
func (f *fakeTB) Skipf(format string, a ...any) { f.end("skip: " + fmt.Sprintf(format, a...)) }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.end("fatal: " + fmt.Sprintf(format, a...))
}
func (f *fakeTB) Fatal(a ...any) { f.end("fatal: " + fmt.Sprint(a...)) }
func (f *fakeTB) end(s string)   { f.outcome = s; runtime.Goexit() }

func TestSwitch(t *testing.T) {
	resolve := func(bin string) string {
		f := &fakeTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			binaries(f, "some-package", bin)
			f.outcome = "found"
		}()
		<-done
		return f.outcome
	}
	for _, tc := range []struct {
		mode, bin, want string
	}{
		{"", "sh", "found"},
		{"", "labgen-no-such-binary", "skip: testsrv: labgen-no-such-binary not found in PATH or /usr/sbin (install Debian package some-package); set LABGEN_TEST_SERVERS=require to fail instead"},
		{"require", "sh", "found"},
		{"require", "labgen-no-such-binary", "fatal: testsrv: labgen-no-such-binary not found in PATH or /usr/sbin (install Debian package some-package); LABGEN_TEST_SERVERS=require"},
		{"off", "sh", "skip: testsrv: database servers are turned off (LABGEN_TEST_SERVERS=off)"},
		{"yes", "sh", `fatal: testsrv: LABGEN_TEST_SERVERS="yes": want unset, "require" or "off"`},
	} {
		t.Setenv(EnvVar, tc.mode)
		if got := resolve(tc.bin); got != tc.want {
			t.Errorf("%s=%q, %s:\n got %s\nwant %s", EnvVar, tc.mode, tc.bin, got, tc.want)
		}
	}

	// Without Main nothing would stop the shared servers.
	t.Setenv(EnvVar, "")
	servers.SetActive(false)
	defer servers.SetActive(true)
	if got := resolve("sh"); !strings.Contains(got, "testsrv.Main") {
		t.Errorf("without Main: %s", got)
	}
}

func TestPostgres(t *testing.T) {
	srv := Postgres(t)
	name, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	var level, tz string
	if err := db.QueryRow("SELECT current_setting('wal_level'), current_setting('TimeZone')").Scan(&level, &tz); err != nil {
		t.Fatal(err)
	}
	if level != "logical" || tz != "UTC" {
		t.Errorf("wal_level %s, TimeZone %s; want logical, UTC", level, tz)
	}
	user, password := srv.NewUser(t, name)
	srv.Exec(t, name, `CREATE TABLE t (id int PRIMARY KEY)`, `GRANT SELECT ON t TO "`+user+`"`)
	ucfg, err := pgx.ParseConfig(srv.URL(user, password, name))
	if err != nil {
		t.Fatal(err)
	}
	udb := stdlib.OpenDB(*ucfg)
	defer udb.Close()
	var n int
	if err := udb.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := udb.Exec("INSERT INTO t VALUES (1)"); err == nil {
		t.Error("the user may insert without a grant")
	}
}
