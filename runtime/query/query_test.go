package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
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
