package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mysqlFixture is a database with table t (three rows) as root, and an engine.
type mysqlFixture struct {
	srv  *testsrv.MariaDBServer
	db   string
	root *sql.DB
}

func newMySQL(t *testing.T) *mysqlFixture {
	t.Helper()
	srv := testsrv.MariaDB(t)
	name, dsn := srv.NewDatabase(t)
	root, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	f := &mysqlFixture{srv: srv, db: name, root: root}
	f.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(32))")
	f.exec(t, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	return f
}

func (f *mysqlFixture) exec(t *testing.T, q string) {
	t.Helper()
	if _, err := f.root.ExecContext(tctx(t), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (f *mysqlFixture) count(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.root.QueryRowContext(tctx(t), "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// open returns a function that fails t on an error of Open* and closes
// the engine when t ends: open(t)(OpenMySQL(dsn)).
func open(t *testing.T) func(Engine, error) Engine {
	return func(e Engine, err error) Engine {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
}

func mustQuery(t *testing.T, e Engine, q string, lim Limits) *Result {
	t.Helper()
	res, err := e.Query(tctx(t), q, lim)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

func checkRow(t *testing.T, res *Result, wantCols []Column, want []any) {
	t.Helper()
	if !reflect.DeepEqual(res.Columns, wantCols) {
		t.Errorf("columns:\n got %v\nwant %v", res.Columns, wantCols)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("got %d rows, want 1", len(res.Rows))
	}
	for i, w := range want {
		if i >= len(res.Rows[0]) {
			break
		}
		if g := res.Rows[0][i]; !reflect.DeepEqual(g, w) {
			t.Errorf("column %s: got %#v (%T), want %#v (%T)", res.Columns[i].Name, g, g, w, w)
		}
	}
	if len(res.Rows[0]) != len(want) {
		t.Errorf("got %d values, want %d", len(res.Rows[0]), len(want))
	}
	if _, err := json.Marshal(res.Rows); err != nil {
		t.Errorf("rows are not JSON: %v", err)
	}
}

func TestMySQLGenericScanning(t *testing.T) {
	f := newMySQL(t)
	f.exec(t, `CREATE TABLE types (
		ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, ubi BIGINT UNSIGNED, ui INT UNSIGNED,
		dec1 DECIMAL(12,2), fl FLOAT, db DOUBLE, vc VARCHAR(20), tx TEXT, ch CHAR(3),
		d DATE, dt DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME, yr YEAR, bt BIT(10), bo BOOLEAN,
		bl BLOB, vb VARBINARY(8), js JSON, en ENUM('a','b'), st SET('x','y'), nul VARCHAR(3))`)
	f.exec(t, `INSERT INTO types VALUES (-128, 32767, -8388608, 2147483647, -9223372036854775808,
		18446744073709551615, 4294967295, 1234567890.12, 0.1, 2.5e-300, 'héllo <b>', 'long text', 'abc',
		'2024-02-29', '2024-02-29 23:59:58.125', '2024-03-01 00:00:00.000001', '-01:02:03', 2024, b'1000000001', TRUE,
		x'00ff10', 'ab', '{"k": [1, 2]}', 'b', 'x,y', NULL)`)
	user, pw := f.srv.NewUser(t, "SELECT ON `"+f.db+"`.*")
	for _, parseTime := range []bool{false, true} {
		t.Run(fmt.Sprintf("parseTime=%v", parseTime), func(t *testing.T) {
			dsn := f.srv.DSN(user, pw, f.db)
			if parseTime {
				dsn += "?parseTime=true"
			}
			e := open(t)(OpenMySQL(dsn))
			res := mustQuery(t, e, "SELECT * FROM types", Limits{})
			wantCols := []Column{
				{"ti", "TINYINT"}, {"si", "SMALLINT"}, {"mi", "MEDIUMINT"}, {"i", "INT"}, {"bi", "BIGINT"},
				{"ubi", "UNSIGNED BIGINT"}, {"ui", "UNSIGNED INT"}, {"dec1", "DECIMAL(12,2)"}, {"fl", "FLOAT"},
				{"db", "DOUBLE"}, {"vc", "VARCHAR"}, {"tx", "TEXT"}, {"ch", "CHAR"}, {"d", "DATE"},
				{"dt", "DATETIME"}, {"ts", "TIMESTAMP"}, {"tm", "TIME"}, {"yr", "YEAR"}, {"bt", "BIT"},
				{"bo", "TINYINT"}, {"bl", "BLOB"}, {"vb", "VARBINARY"}, {"js", "TEXT"}, {"en", "ENUM"},
				{"st", "SET"}, {"nul", "VARCHAR"},
			}
			want := []any{
				int64(-128), int64(32767), int64(-8388608), int64(2147483647), int64(math.MinInt64),
				json.Number("18446744073709551615"), int64(4294967295), json.Number("1234567890.12"), 0.1,
				2.5e-300, "héllo <b>", "long text", "abc", "2024-02-29", "2024-02-29 23:59:58.125",
				"2024-03-01 00:00:00.000001", "-01:02:03", int64(2024), int64(513), int64(1),
				"0x00ff10", "ab", `{"k": [1, 2]}`, "b", "x,y", nil,
			}
			checkRow(t, res, wantCols, want)
		})
	}
}

func TestMySQLLimits(t *testing.T) {
	f := newMySQL(t)
	e := open(t)(OpenMySQL(f.srv.DSN("root", "", f.db)))
	gen := "SELECT seq, REPEAT('x', 100) AS pad FROM seq_1_to_100000"

	res := mustQuery(t, e, gen, Limits{MaxRows: 10})
	if len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("MaxRows 10: got %d rows, truncated %v; want 10, true", len(res.Rows), res.Truncated)
	}
	res = mustQuery(t, e, "SELECT * FROM t ORDER BY id", Limits{MaxRows: 3})
	if len(res.Rows) != 3 || res.Truncated {
		t.Errorf("MaxRows 3 of 3: got %d rows, truncated %v; want 3, false", len(res.Rows), res.Truncated)
	}
	res = mustQuery(t, e, gen, Limits{MaxBytes: 1000})
	if n := len(res.Rows); n == 0 || n > 10 || !res.Truncated {
		t.Errorf("MaxBytes 1000: got %d rows (~110 bytes each), truncated %v; want 1..9, true", n, res.Truncated)
	}
	if b, _ := json.Marshal(res.Rows); len(b) > 1000 {
		t.Errorf("MaxBytes 1000: rows are %d bytes of JSON", len(b))
	}
	// A truncated query is stopped, not read to its end: a big cross join
	// returns its first rows quickly.
	start := time.Now()
	res = mustQuery(t, e, "SELECT a.seq, b.seq FROM seq_1_to_100000 a, seq_1_to_100000 b", Limits{MaxRows: 5, Timeout: 20 * time.Second})
	if !res.Truncated || len(res.Rows) != 5 {
		t.Errorf("cross join: got %d rows, truncated %v", len(res.Rows), res.Truncated)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("truncated cross join took %s: the rest was read instead of cancelled", d)
	}
	// The engine is still usable afterwards.
	mustQuery(t, e, "SELECT 1", Limits{})
}

func TestMySQLTimeout(t *testing.T) {
	f := newMySQL(t)
	e := open(t)(OpenMySQL(f.srv.DSN("root", "", f.db)))
	for _, q := range []string{
		"SELECT SLEEP(20)",
		"SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b, seq_1_to_100 c",
	} {
		start := time.Now()
		_, err := e.Query(tctx(t), q, Limits{Timeout: 700 * time.Millisecond})
		d := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: got error %v, want a timeout", q, err)
		} else if !strings.Contains(err.Error(), "700ms") {
			t.Errorf("%s: error %q does not name the limit", q, err)
		}
		if d > 5*time.Second {
			t.Errorf("%s: took %s with a 700ms timeout", q, d)
		}
	}
	mustQuery(t, e, "SELECT 1", Limits{})
}

// Writes through the engine fail even as root, who may do everything: the
// read-only session and transaction alone stop them.
func TestMySQLReadOnlySession(t *testing.T) {
	f := newMySQL(t)
	e := open(t)(OpenMySQL(f.srv.DSN("root", "", f.db) + "?multiStatements=true"))
	for _, q := range []string{
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
	} {
		_, err := e.Query(tctx(t), q, Limits{})
		if err == nil {
			t.Errorf("%s: no error", q)
		} else {
			t.Logf("%s: %v", q, err)
		}
	}
	// A statement that ends the engine's transaction, or tries to lift
	// the session's read-only mode, does not open the next query to writes.
	for _, q := range []string{"COMMIT", "SET SESSION TRANSACTION READ WRITE", "SET autocommit = 1"} {
		_, _ = e.Query(tctx(t), q, Limits{})
		if _, err := e.Query(tctx(t), "DELETE FROM t", Limits{}); err == nil {
			t.Errorf("DELETE after %s: no error", q)
		}
	}
	if n := f.count(t); n != 3 {
		t.Errorf("t has %d rows after the attempts, want 3", n)
	}
	var tables int
	if err := f.root.QueryRowContext(tctx(t), "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?", f.db).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 1 {
		t.Errorf("the database has %d tables, want 1 (t)", tables)
	}
	var cols int
	if err := f.root.QueryRowContext(tctx(t), "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = 't'", f.db).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != 2 {
		t.Errorf("t has %d columns, want 2", cols)
	}
	// Reading still works on the same engine.
	if res := mustQuery(t, e, "SELECT name FROM t ORDER BY id", Limits{}); len(res.Rows) != 3 || res.Rows[0][0] != "one" {
		t.Errorf("got %v", res.Rows)
	}
}

// chFixture is a database with table t (three rows).
type chFixture struct {
	srv *testsrv.ClickHouseServer
	db  string
}

func newClickHouse(t *testing.T) *chFixture {
	t.Helper()
	srv := testsrv.ClickHouse(t)
	name, _ := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE "+name+".t (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
	srv.Exec(t, "INSERT INTO "+name+".t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	return &chFixture{srv: srv, db: name}
}

func (f *chFixture) count(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(f.srv.Exec(t, "SELECT count() FROM "+f.db+".t"))
}

func (f *chFixture) open(t *testing.T, user string) Engine {
	return open(t)(OpenClickHouse(ClickHouseOptions{Addr: f.srv.NativeAddr(), Database: f.db, User: user}))
}

func TestClickHouseGenericScanning(t *testing.T) {
	f := newClickHouse(t)
	e := f.open(t, "")
	res := mustQuery(t, e, `SELECT
		toUInt8(255) AS u8, toUInt64(18446744073709551615) AS u64, toInt8(-128) AS i8, toInt64(-9223372036854775808) AS i64,
		toFloat32(0.1) AS f32, toFloat64(2.5) AS f64, nan AS fnan, -inf AS fninf,
		toDecimal64('1234567890.12', 2) AS dec, toDecimal32('12.5', 2) AS dec2, 'héllo <b>' AS s, toFixedString('ab', 3) AS fs, unhex('00FF') AS bin,
		toDate('2024-02-29') AS d, toDateTime('2024-02-29 23:59:58') AS dt,
		CAST(NULL AS Nullable(String)) AS ns, CAST('x' AS Nullable(String)) AS nsx, NULL AS nothing,
		[1, 2, 3] AS arr, ['a', 'b'] AS sarr, [toDate('2024-01-02')] AS darr, (1, 'x') AS tup,
		CAST('b' AS Enum8('a' = 1, 'b' = 2)) AS en, toUUID('123e4567-e89b-12d3-a456-426614174000') AS uuid,
		1 = 1 AS truth`, Limits{})
	wantCols := []Column{
		{"u8", "UInt8"}, {"u64", "UInt64"}, {"i8", "Int8"}, {"i64", "Int64"}, {"f32", "Float32"}, {"f64", "Float64"},
		{"fnan", "Float64"}, {"fninf", "Float64"}, {"dec", "Decimal(18, 2)"}, {"dec2", "Decimal(9, 2)"}, {"s", "String"}, {"fs", "FixedString(3)"},
		{"bin", "String"}, {"d", "Date"}, {"dt", "DateTime"}, {"ns", "Nullable(String)"}, {"nsx", "Nullable(String)"},
		{"nothing", "Nullable(Nothing)"}, {"arr", "Array(UInt8)"}, {"sarr", "Array(String)"}, {"darr", "Array(Date)"},
		{"tup", "Tuple(UInt8, String)"}, {"en", "Enum8('a' = 1, 'b' = 2)"}, {"uuid", "UUID"}, {"truth", "UInt8"},
	}
	want := []any{
		int64(255), json.Number("18446744073709551615"), int64(-128), int64(math.MinInt64),
		0.1, 2.5, "NaN", "-Inf",
		json.Number("1234567890.12"), json.Number("12.50"), "héllo <b>", "ab\x00", "0x00ff",
		"2024-02-29", "2024-02-29 23:59:58",
		nil, "x", nil,
		[]any{int64(1), int64(2), int64(3)}, []any{"a", "b"}, []any{"2024-01-02"}, []any{int64(1), "x"},
		"b", "123e4567-e89b-12d3-a456-426614174000", int64(1),
	}
	checkRow(t, res, wantCols, want)
}

func TestClickHouseLimits(t *testing.T) {
	f := newClickHouse(t)
	e := f.open(t, "")
	// system.numbers never ends: only cancelling the query returns.
	start := time.Now()
	res := mustQuery(t, e, "SELECT number, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' AS pad FROM system.numbers", Limits{MaxRows: 10, Timeout: 20 * time.Second})
	if len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("MaxRows 10: got %d rows, truncated %v", len(res.Rows), res.Truncated)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("truncated endless query took %s", d)
	}
	res = mustQuery(t, e, "SELECT number, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' AS pad FROM system.numbers", Limits{MaxBytes: 1000})
	if n := len(res.Rows); n == 0 || n > 10 || !res.Truncated {
		t.Errorf("MaxBytes 1000: got %d rows, truncated %v", n, res.Truncated)
	}
	res = mustQuery(t, e, "SELECT * FROM t ORDER BY id", Limits{MaxRows: 3})
	if len(res.Rows) != 3 || res.Truncated {
		t.Errorf("3 of 3: got %d rows, truncated %v", len(res.Rows), res.Truncated)
	}
	mustQuery(t, e, "SELECT 1", Limits{})
}

func TestClickHouseTimeout(t *testing.T) {
	f := newClickHouse(t)
	e := f.open(t, "")
	start := time.Now()
	_, err := e.Query(tctx(t), "SELECT count() FROM system.numbers", Limits{Timeout: 1500 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("got %v, want a timeout", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("took %s with a 1.5s timeout", d)
	}
	mustQuery(t, e, "SELECT 1", Limits{})
}

func TestClickHouseReadOnly(t *testing.T) {
	f := newClickHouse(t)
	for _, user := range []string{"", testsrv.ClickHouseReadOnlyUser} {
		t.Run("user="+user, func(t *testing.T) {
			e := f.open(t, user)
			res := mustQuery(t, e, "SELECT value FROM system.settings WHERE name = 'readonly'", Limits{})
			if !reflect.DeepEqual(res.Rows, [][]any{{"1"}}) {
				t.Errorf("queries run with readonly = %v, want 1", res.Rows)
			}
			for _, q := range []string{
				"INSERT INTO t SELECT number + 10, 'x' FROM system.numbers LIMIT 2",
				"CREATE TABLE t2 (id UInt64) ENGINE = Memory",
				"DROP TABLE t",
				"TRUNCATE TABLE t",
				"ALTER TABLE t DELETE WHERE 1",
				"ALTER TABLE t ADD COLUMN c UInt8",
				"RENAME TABLE t TO t3",
				"OPTIMIZE TABLE t FINAL",
				"DETACH TABLE t",
				"SET readonly = 0",
				"SELECT * FROM t SETTINGS readonly = 0",
				"CREATE DATABASE " + f.db + "_x",
			} {
				if _, err := e.Query(tctx(t), q, Limits{}); err == nil {
					t.Errorf("%s: no error", q)
				} else {
					t.Logf("%s: %v", q, err)
				}
			}
			if n := f.count(t); n != "3" {
				t.Errorf("t has %s rows, want 3", n)
			}
			if got := strings.TrimSpace(f.srv.Exec(t, "SELECT count() FROM system.columns WHERE database = '"+f.db+"'")); got != "2" {
				t.Errorf("the database has %s columns, want 2 (t.id, t.name)", got)
			}
		})
	}
}
