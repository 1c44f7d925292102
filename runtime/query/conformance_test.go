package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/testsrv"
)

// The conformance suite: every engine the package opens — MySQL (on
// MariaDB), PostgreSQL and ClickHouse (chdb's server) — each on its real
// server from internal/testsrv, opened through Open as every command
// opens it, is held to the same behaviour. Only how each server spells a
// query differs (dialect); what must come back does not. A new engine
// joins by adding its entry to engines; the engine-specific tests
// (GenericScanning: the whole range of each server's types) stay beside
// its code.

// engineUnderTest is one engine over a fresh database holding table t:
// (1, 'one'), (2, 'two'), (3, 'three').
type engineUnderTest struct {
	// root may write: only the engine's read-only session stops it.
	root Endpoint
	// reader is the lab's kind of reader user, who may only read.
	reader Endpoint
	// shape is what a write would change, as the superuser sees it: the
	// rows of t and the columns of the database's tables.
	shape func(t *testing.T) string
	d     dialect
}

// dialect is how one server spells what the suite asks.
type dialect struct {
	// typed returns one row of columns i (42), big (2^53 + 1), dec (12.50
	// as a 2-place decimal), f (2.5), s ('héllo <b>'), d (2024-02-29),
	// ts (2024-02-29 23:59:58), n (NULL, a string type) and e ('').
	typed     string
	typedCols []string // the server's names of those columns' types
	// many returns at least 100,000 rows of (n, a 100-character pad),
	// numbered from 1.
	many string
	// huge returns rows faster than they can be read to their end within
	// the test's time: a cross join, or an endless table.
	huge string
	// slow run for far longer than 20 s before returning anything.
	slow []string
	// writes must all fail through the engine, even as root.
	writes []string
	// lifts try to lift the session's read-only mode, or end the
	// transaction that enforces it.
	lifts []string
}

const pad = "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"

// engines are the engines the package opens, each starting its server
// (shared by the test binary) and a fresh database.
var engines = []struct {
	name  string
	start func(t *testing.T) *engineUnderTest
}{
	{MySQL, mysqlUnderTest},
	{Postgres, postgresUnderTest},
	{ClickHouse, clickhouseUnderTest},
}

func mysqlUnderTest(t *testing.T) *engineUnderTest {
	srv := testsrv.MariaDB(t)
	name, dsn := srv.NewDatabase(t)
	root := sqlDB(t, "mysql", dsn)
	mustExec(t, root, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(32))")
	mustExec(t, root, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	user, pw := srv.NewUser(t, "SELECT ON `"+name+"`.*")
	return &engineUnderTest{
		root:   Endpoint{Engine: MySQL, Addr: srv.Addr(), Database: name, User: "root"},
		reader: Endpoint{Engine: MySQL, Addr: srv.Addr(), Database: name, User: user, Password: pw},
		shape: func(t *testing.T) string {
			return shapeOf(t, root, "SELECT COUNT(*) FROM t",
				"SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = '"+name+"'")
		},
		d: dialect{
			typed: `SELECT 42 AS i, 9007199254740993 AS big, CAST(12.5 AS DECIMAL(10,2)) AS ` + "`dec`" + `, 2.5e0 AS f,
				'héllo <b>' AS s, DATE '2024-02-29' AS d, TIMESTAMP '2024-02-29 23:59:58' AS ts,
				CAST(NULL AS CHAR) AS n, '' AS e`,
			typedCols: []string{"INT", "BIGINT", "DECIMAL(10,2)", "DOUBLE", "VARCHAR", "DATE", "DATETIME", "VARCHAR", "VARCHAR"},
			many:      "SELECT seq AS n, " + pad + " AS pad FROM seq_1_to_100000",
			huge:      "SELECT a.seq, b.seq FROM seq_1_to_100000 a, seq_1_to_100000 b",
			slow:      []string{"SELECT SLEEP(20)", "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b, seq_1_to_100 c"},
			writes: []string{
				"INSERT INTO t VALUES (4, 'four')",
				"INSERT INTO t SELECT id + 10, name FROM t",
				"REPLACE INTO t VALUES (1, 'uno')",
				"UPDATE t SET name = 'x'",
				"DELETE FROM t",
				"TRUNCATE TABLE t",
				"DROP TABLE t",
				"ALTER TABLE t ADD COLUMN c INT",
				"CREATE TABLE t2 (id INT)",
				"RENAME TABLE t TO t3",
				"CREATE VIEW v AS SELECT * FROM t",
				"SELECT 1; DELETE FROM t",
			},
			lifts: []string{"COMMIT", "SET SESSION TRANSACTION READ WRITE", "SET autocommit = 1"},
		},
	}
}

func postgresUnderTest(t *testing.T) *engineUnderTest {
	srv := testsrv.Postgres(t)
	name, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	root := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { root.Close() })
	mustExec(t, root, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(32))")
	mustExec(t, root, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	mustExec(t, root, "CREATE SEQUENCE s")
	user, pw := srv.NewUser(t, name)
	srv.Exec(t, name, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO "`+user+`"`)
	ep := func(user, password string) Endpoint {
		return Endpoint{Engine: Postgres, Addr: srv.Addr(), Database: name, User: user, Password: password, Params: "sslmode=disable"}
	}
	return &engineUnderTest{
		root:   ep("postgres", ""),
		reader: ep(user, pw),
		shape: func(t *testing.T) string {
			return shapeOf(t, root, "SELECT count(*) FROM t",
				"SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public'")
		},
		d: dialect{
			typed: `SELECT 42::int4 AS i, 9007199254740993::int8 AS big, 12.5::numeric(10,2) AS dec, 2.5::float8 AS f,
				'héllo <b>'::varchar AS s, DATE '2024-02-29' AS d, TIMESTAMP '2024-02-29 23:59:58' AS ts,
				NULL::text AS n, ''::text AS e`,
			typedCols: []string{"INT4", "INT8", "NUMERIC(10,2)", "FLOAT8", "VARCHAR", "DATE", "TIMESTAMP", "TEXT", "TEXT"},
			many:      "SELECT g AS n, " + pad + " AS pad FROM generate_series(1, 100000) g",
			huge:      "SELECT a, b FROM generate_series(1, 100000) a, generate_series(1, 100000) b",
			slow:      []string{"SELECT pg_sleep(20)", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"},
			writes: []string{
				"INSERT INTO t VALUES (4, 'four')",
				"INSERT INTO t SELECT id + 10, name FROM t",
				"UPDATE t SET name = 'x'",
				"DELETE FROM t",
				"TRUNCATE TABLE t",
				"DROP TABLE t",
				"ALTER TABLE t ADD COLUMN c INT",
				"CREATE TABLE t2 (id INT)",
				"ALTER TABLE t RENAME TO t3",
				"CREATE VIEW v AS SELECT * FROM t",
				"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
				"SELECT 1; DELETE FROM t",
				"SELECT nextval('s')",
			},
			lifts: []string{"COMMIT", "SET default_transaction_read_only = off", "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"},
		},
	}
}

func clickhouseUnderTest(t *testing.T) *engineUnderTest {
	srv := testsrv.ClickHouse(t)
	name, _ := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE "+name+".t (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
	srv.Exec(t, "INSERT INTO "+name+".t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	ep := func(user string) Endpoint {
		return Endpoint{Engine: ClickHouse, Addr: srv.NativeAddr(), Database: name, User: user}
	}
	return &engineUnderTest{
		// The default user may write; the readonly user's profile may not.
		root:   ep(""),
		reader: ep(testsrv.ClickHouseReadOnlyUser),
		shape: func(t *testing.T) string {
			rows := strings.TrimSpace(srv.Exec(t, "SELECT count() FROM "+name+".t"))
			cols := strings.TrimSpace(srv.Exec(t, "SELECT count() FROM system.columns WHERE database = '"+name+"'"))
			return rows + " rows, " + cols + " columns"
		},
		d: dialect{
			typed: `SELECT toInt32(42) AS i, toInt64(9007199254740993) AS big, toDecimal64('12.5', 2) AS dec, toFloat64(2.5) AS f,
				'héllo <b>' AS s, toDate('2024-02-29') AS d, toDateTime('2024-02-29 23:59:58') AS ts,
				CAST(NULL AS Nullable(String)) AS n, '' AS e`,
			typedCols: []string{"Int32", "Int64", "Decimal(18, 2)", "Float64", "String", "Date", "DateTime", "Nullable(String)", "String"},
			many:      "SELECT number + 1 AS n, " + pad + " AS pad FROM system.numbers",
			huge:      "SELECT number FROM system.numbers",
			slow:      []string{"SELECT count() FROM system.numbers"},
			writes: []string{
				"INSERT INTO t SELECT number + 10, 'x' FROM system.numbers LIMIT 2",
				"ALTER TABLE t UPDATE name = 'x' WHERE 1",
				"ALTER TABLE t DELETE WHERE 1",
				"TRUNCATE TABLE t",
				"DROP TABLE t",
				"ALTER TABLE t ADD COLUMN c UInt8",
				"CREATE TABLE t2 (id UInt64) ENGINE = Memory",
				"RENAME TABLE t TO t3",
				"CREATE VIEW v AS SELECT * FROM t",
				"OPTIMIZE TABLE t FINAL",
				"DETACH TABLE t",
				"CREATE DATABASE " + name + "_x",
				"SELECT * FROM t SETTINGS readonly = 0",
			},
			lifts: []string{"SET readonly = 0"},
		},
	}
}

func sqlDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.ExecContext(tctx(t), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func shapeOf(t *testing.T, db *sql.DB, rows, cols string) string {
	t.Helper()
	var r, c int
	if err := db.QueryRowContext(tctx(t), rows).Scan(&r); err != nil {
		t.Fatalf("%s: %v", rows, err)
	}
	if err := db.QueryRowContext(tctx(t), cols).Scan(&c); err != nil {
		t.Fatalf("%s: %v", cols, err)
	}
	return fmt.Sprintf("%d rows, %d columns", r, c)
}

// TestConformance runs every check on every engine.
func TestConformance(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			u := eng.start(t)
			root := open(t)(Open(u.root))
			if root.Name() != eng.name {
				t.Errorf("Name() = %q, want %q", root.Name(), eng.name)
			}
			for _, c := range conformance {
				t.Run(c.name, func(t *testing.T) { c.check(t, u, root) })
			}
		})
	}
}

// conformance are the behaviours every engine shares.
var conformance = []struct {
	name  string
	check func(t *testing.T, u *engineUnderTest, e Engine)
}{
	{"TypedColumns", func(t *testing.T, u *engineUnderTest, e Engine) {
		res := mustQuery(t, e, u.d.typed, Limits{})
		names := []string{"i", "big", "dec", "f", "s", "d", "ts", "n", "e"}
		var cols []Column
		for i, n := range names {
			cols = append(cols, Column{n, u.d.typedCols[i]})
		}
		// The same JSON-friendly values from every engine: whole numbers
		// exact (2^53 + 1 is not a float64), decimals as written, times
		// as the server prints them, NULL apart from ''.
		checkRow(t, res, cols, []any{int64(42), int64(9007199254740993), json.Number("12.50"), 2.5,
			"héllo <b>", "2024-02-29", "2024-02-29 23:59:58", nil, ""})
		b, _ := json.Marshal(res.Rows)
		if want := `[[42,9007199254740993,12.50,2.5,"héllo \u003cb\u003e","2024-02-29","2024-02-29 23:59:58",null,""]]`; string(b) != want {
			t.Errorf("rows as JSON:\n got %s\nwant %s", b, want)
		}
	}},
	{"TableRows", func(t *testing.T, u *engineUnderTest, e Engine) {
		res := mustQuery(t, e, "SELECT id, name FROM t ORDER BY id", Limits{})
		want := [][]any{{int64(1), "one"}, {int64(2), "two"}, {int64(3), "three"}}
		if !reflect.DeepEqual(res.Rows, want) || res.Truncated {
			t.Errorf("got %v (truncated %v), want %v", res.Rows, res.Truncated, want)
		}
		if len(res.Columns) != 2 || res.Columns[0].Name != "id" || res.Columns[1].Name != "name" {
			t.Errorf("columns %v", res.Columns)
		}
	}},
	{"EmptyResultKeepsHeaders", func(t *testing.T, u *engineUnderTest, e Engine) {
		res := mustQuery(t, e, "SELECT id, name FROM t WHERE id > 100", Limits{})
		if len(res.Columns) != 2 || res.Columns[0].Name != "id" || res.Columns[1].Name != "name" || res.Columns[0].Type == "" {
			t.Errorf("columns of an empty result: %v", res.Columns)
		}
		if b, _ := json.Marshal(res); !strings.Contains(string(b), `"rows":[]`) || res.Truncated {
			t.Errorf("an empty result is %s, want rows [] and not truncated", b)
		}
	}},
	{"MaxRows", func(t *testing.T, u *engineUnderTest, e Engine) {
		res := mustQuery(t, e, u.d.many, Limits{MaxRows: 10})
		if len(res.Rows) != 10 || !res.Truncated {
			t.Errorf("MaxRows 10: got %d rows, truncated %v; want 10, true", len(res.Rows), res.Truncated)
		}
		res = mustQuery(t, e, "SELECT id FROM t ORDER BY id", Limits{MaxRows: 3})
		if len(res.Rows) != 3 || res.Truncated {
			t.Errorf("MaxRows 3 of 3: got %d rows, truncated %v; want 3, false", len(res.Rows), res.Truncated)
		}
	}},
	{"MaxBytes", func(t *testing.T, u *engineUnderTest, e Engine) {
		res := mustQuery(t, e, u.d.many, Limits{MaxBytes: 1000})
		if n := len(res.Rows); n == 0 || n > 9 || !res.Truncated {
			t.Errorf("MaxBytes 1000: got %d rows (~110 bytes each), truncated %v; want 1..9, true", n, res.Truncated)
		}
		if b, _ := json.Marshal(res.Rows); len(b) > 1000 {
			t.Errorf("MaxBytes 1000: rows are %d bytes of JSON", len(b))
		}
	}},
	{"TruncatedQueryIsStopped", func(t *testing.T, u *engineUnderTest, e Engine) {
		// Stopped, not read to its end: the first rows come back quickly.
		start := time.Now()
		res := mustQuery(t, e, u.d.huge, Limits{MaxRows: 5, Timeout: 20 * time.Second})
		if !res.Truncated || len(res.Rows) != 5 {
			t.Errorf("got %d rows, truncated %v; want 5, true", len(res.Rows), res.Truncated)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s: the rest was read instead of cancelled", d)
		}
		mustQuery(t, e, "SELECT 1", Limits{})
	}},
	{"Timeout", func(t *testing.T, u *engineUnderTest, e Engine) {
		for _, q := range u.d.slow {
			start := time.Now()
			_, err := e.Query(tctx(t), q, Limits{Timeout: 1500 * time.Millisecond})
			d := time.Since(start)
			if !errors.Is(err, ErrTimeout) {
				t.Errorf("%s: got error %v, want a timeout", q, err)
			} else if !strings.Contains(err.Error(), "1.5s") {
				t.Errorf("%s: error %q does not name the limit", q, err)
			}
			if d > 8*time.Second {
				t.Errorf("%s: took %s with a 1.5s timeout", q, d)
			}
		}
		mustQuery(t, e, "SELECT 1", Limits{})
	}},
	{"Cancel", func(t *testing.T, u *engineUnderTest, e Engine) {
		ctx, cancel := context.WithCancel(tctx(t))
		time.AfterFunc(500*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.Query(ctx, u.d.slow[0], Limits{Timeout: 30 * time.Second})
		if err == nil || errors.Is(err, ErrTimeout) {
			t.Errorf("cancelled query: got error %v, want one that is not a timeout", err)
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("a query cancelled after 0.5s took %s", d)
		}
		mustQuery(t, e, "SELECT 1", Limits{})
	}},
	{"Errors", func(t *testing.T, u *engineUnderTest, e Engine) {
		// The server's own message, not a timeout; the engine stays usable.
		for q, want := range map[string]string{
			"SELECT * FROM no_such_table":  "no_such_table",
			"SELECT no_such_column FROM t": "no_such_column",
			"SELEC 1":                      "SELEC",
		} {
			_, err := e.Query(tctx(t), q, Limits{})
			if err == nil || errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got error %v, want the server's, naming %s", q, err, want)
			}
		}
		mustQuery(t, e, "SELECT 1", Limits{})
	}},
	{"Unreachable", func(t *testing.T, u *engineUnderTest, _ Engine) {
		ep := u.root
		ep.Addr, ep.DialTimeout = "127.0.0.1:1", 2*time.Second
		e := open(t)(Open(ep))
		start := time.Now()
		if _, err := e.Query(tctx(t), "SELECT 1", Limits{}); err == nil || errors.Is(err, ErrTimeout) {
			t.Errorf("closed port: got error %v", err)
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("a closed port took %s to fail", d)
		}
	}},
	{"ReadOnlyAsRoot", func(t *testing.T, u *engineUnderTest, e Engine) {
		checkReadOnly(t, u, e)
	}},
	{"ReadOnlyAsReader", func(t *testing.T, u *engineUnderTest, _ Engine) {
		checkReadOnly(t, u, open(t)(Open(u.reader)))
	}},
}

// checkReadOnly: every write fails, a statement that ends the engine's
// transaction or tries to lift its read-only mode does not open the next
// query to writes, nothing changed, and reading still works.
func checkReadOnly(t *testing.T, u *engineUnderTest, e Engine) {
	before := u.shape(t)
	for _, q := range u.d.writes {
		if _, err := e.Query(tctx(t), q, Limits{}); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
	for _, q := range u.d.lifts {
		_, _ = e.Query(tctx(t), q, Limits{})
		for _, w := range u.d.writes[:1] {
			if _, err := e.Query(tctx(t), w, Limits{}); err == nil {
				t.Errorf("%s after %s: no error", w, q)
			}
		}
	}
	if after := u.shape(t); after != before {
		t.Errorf("the database was %s before the attempts, %s after", before, after)
	}
	if res := mustQuery(t, e, "SELECT name FROM t ORDER BY id", Limits{}); len(res.Rows) != 3 || res.Rows[0][0] != "one" {
		t.Errorf("reading after the attempts: got %v", res.Rows)
	}
}
