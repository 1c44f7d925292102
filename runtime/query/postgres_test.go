package query

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/testsrv"
)

// pgFixture is a database with table t (three rows) as the superuser.
type pgFixture struct {
	srv  *testsrv.PostgresServer
	db   string
	root *sql.DB
}

func newPostgres(t *testing.T) *pgFixture {
	t.Helper()
	srv := testsrv.Postgres(t)
	name, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	root := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { root.Close() })
	f := &pgFixture{srv: srv, db: name, root: root}
	f.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(32))")
	f.exec(t, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	return f
}

func (f *pgFixture) exec(t *testing.T, q string) {
	t.Helper()
	if _, err := f.root.ExecContext(tctx(t), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// open opens an engine as user through Open, as every command does.
func (f *pgFixture) open(t *testing.T, user, password string) Engine {
	t.Helper()
	host, port, _ := strings.Cut(f.srv.Addr(), ":")
	return open(t)(Open(Endpoint{Engine: Postgres, Addr: host + ":" + port, Database: f.db,
		User: user, Password: password, Params: "sslmode=disable"}))
}

func TestPostgresGenericScanning(t *testing.T) {
	f := newPostgres(t)
	f.exec(t, `CREATE TABLE types (si SMALLINT, i INT, bi BIGINT, dec1 NUMERIC(12,2), fl REAL, db DOUBLE PRECISION,
		vc VARCHAR(20), tx TEXT, d DATE, ts TIMESTAMP(3), bo BOOLEAN, by BYTEA, js JSONB, nul VARCHAR(3))`)
	f.exec(t, `INSERT INTO types VALUES (32767, 2147483647, -9223372036854775808, 1234567890.10, 0.1, 2.5e-300,
		'héllo <b>', 'long text', '2024-02-29', '2024-02-29 23:59:58.125', TRUE, '\x00ff10', '{"k": [1, 2]}', NULL)`)
	e := f.open(t, "postgres", "")
	res := mustQuery(t, e, "SELECT * FROM types", Limits{})
	wantCols := []Column{
		{"si", "INT2"}, {"i", "INT4"}, {"bi", "INT8"}, {"dec1", "NUMERIC(12,2)"}, {"fl", "FLOAT4"}, {"db", "FLOAT8"},
		{"vc", "VARCHAR"}, {"tx", "TEXT"}, {"d", "DATE"}, {"ts", "TIMESTAMP"}, {"bo", "BOOL"}, {"by", "BYTEA"},
		{"js", "JSONB"}, {"nul", "VARCHAR"},
	}
	want := []any{
		int64(32767), int64(2147483647), int64(-9223372036854775808), json.Number("1234567890.10"), 0.1, 2.5e-300,
		"héllo <b>", "long text", "2024-02-29", "2024-02-29 23:59:58.125", true, "0x00ff10", `{"k": [1, 2]}`, nil,
	}
	checkRow(t, res, wantCols, want)
}

func TestPostgresLimits(t *testing.T) {
	f := newPostgres(t)
	e := f.open(t, "postgres", "")
	gen := "SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 100000) g"
	res := mustQuery(t, e, gen, Limits{MaxRows: 10})
	if len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("MaxRows 10: got %d rows, truncated %v; want 10, true", len(res.Rows), res.Truncated)
	}
	res = mustQuery(t, e, gen, Limits{MaxBytes: 1000})
	if n := len(res.Rows); n == 0 || n > 10 || !res.Truncated {
		t.Errorf("MaxBytes 1000: got %d rows, truncated %v; want 1..9, true", n, res.Truncated)
	}
	mustQuery(t, e, "SELECT 1", Limits{})
}

func TestPostgresTimeout(t *testing.T) {
	f := newPostgres(t)
	e := f.open(t, "postgres", "")
	start := time.Now()
	_, err := e.Query(tctx(t), "SELECT pg_sleep(20)", Limits{Timeout: 700 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "700ms") {
		t.Errorf("got error %v, want a timeout naming 700ms", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s with a 700ms timeout", d)
	}
	mustQuery(t, e, "SELECT 1", Limits{})
}

// Writes through the engine fail even as the superuser: the read-only
// session and transaction alone stop them.
func TestPostgresReadOnlySession(t *testing.T) {
	f := newPostgres(t)
	e := f.open(t, "postgres", "")
	for _, q := range []string{
		"INSERT INTO t VALUES (4, 'four')",
		"UPDATE t SET name = 'x'",
		"DELETE FROM t",
		"TRUNCATE TABLE t",
		"DROP TABLE t",
		"ALTER TABLE t ADD COLUMN c INT",
		"CREATE TABLE t2 (id INT)",
		"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
		"SELECT 1; DELETE FROM t",
		"SELECT nextval('s')",
	} {
		if _, err := e.Query(tctx(t), q, Limits{}); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
	for _, q := range []string{"COMMIT", "SET default_transaction_read_only = off", "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"} {
		_, _ = e.Query(tctx(t), q, Limits{})
		if _, err := e.Query(tctx(t), "DELETE FROM t", Limits{}); err == nil {
			t.Errorf("DELETE after %s: no error", q)
		}
	}
	var n int
	if err := f.root.QueryRowContext(tctx(t), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Errorf("t has %d rows (%v) after the attempts, want 3", n, err)
	}
	if res := mustQuery(t, e, "SELECT name FROM t ORDER BY id", Limits{}); len(res.Rows) != 3 || res.Rows[0][0] != "one" {
		t.Errorf("got %v", res.Rows)
	}
}

// The reader user of the lab's users.sql may read and nothing else: the
// second lock, without the engine's read-only session.
func TestPostgresReaderUser(t *testing.T) {
	f := newPostgres(t)
	user, pw := f.srv.NewUser(t, f.db)
	f.srv.Exec(t, f.db, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO "`+user+`"`)
	cfg, err := pgx.ParseConfig(f.srv.URL(user, pw, f.db))
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if _, err := db.ExecContext(tctx(t), "DELETE FROM t"); err == nil {
		t.Error("the reader may delete")
	}
	e := f.open(t, user, pw)
	if res := mustQuery(t, e, "SELECT count(*) AS n FROM t", Limits{}); res.Rows[0][0] != int64(3) {
		t.Errorf("got %v", res.Rows)
	}
}
