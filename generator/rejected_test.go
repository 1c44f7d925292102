package generator

import (
	"database/sql"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// TestRejectedValueStops: a value the server refuses (the table's column
// is narrower than the lab's) stops the run with the table, the column,
// the value and the row's key, and the rows before it stay written.
func TestRejectedValueStops(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	for _, tc := range []struct {
		name, alter, column, reason string
	}{
		{"too long", "MODIFY category VARCHAR(5) NOT NULL", "category", "Data too long for column 'category'"},
		{"out of range", "MODIFY order_amount DECIMAL(4,2) NOT NULL", "order_amount", "Out of range value for column 'order_amount'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ldb := newLabDB(t, srv, lab)
			_, err := ldb.db.Exec("ALTER TABLE orders " + tc.alter)
			must(t, err)
			plans := compile(t, lab, lab.Seed)
			ctx := ctxTimeout(t, time.Minute)
			_, err = Run(ctx, plans, openSink(t, ldb.cfg), Options{Logical: true, Count: 200, Resume: true})
			checkRejected(t, err, ldb.db, tc.column, tc.reason)
		})
	}
}

// TestPostgresRejectedValueStops: the same on PostgreSQL, whose errors
// (22001, 22003) do not name the column.
func TestPostgresRejectedValueStops(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	for _, tc := range []struct {
		name, alter, column, reason string
	}{
		{"too long", `ALTER COLUMN category TYPE VARCHAR(5)`, "category", "value too long for type character varying(5) (SQLSTATE 22001)"},
		{"out of range", `ALTER COLUMN order_amount TYPE NUMERIC(4,2)`, "order_amount", "numeric field overflow (SQLSTATE 22003)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ldb := newPGLabDB(t, srv, lab)
			_, err := ldb.db.Exec("ALTER TABLE orders " + tc.alter)
			must(t, err)
			plans := compile(t, lab, lab.Seed)
			ctx := ctxTimeout(t, time.Minute)
			_, err = Run(ctx, plans, openPGSink(t, ldb.cfg), Options{Logical: true, Count: 200, Resume: true})
			checkRejected(t, err, ldb.db, tc.column, tc.reason)
		})
	}
}

// checkRejected checks the error of a run stopped by a rejected value of
// orders.column, and that the orders before the rejected one are written.
func checkRejected(t *testing.T, err error, db *sql.DB, column, reason string) {
	t.Helper()
	if err == nil {
		t.Fatal("run succeeded")
	}
	msg := err.Error()
	t.Log(msg)
	m := regexp.MustCompile(`column ` + column + ` value (\S+) of table orders, key order_id=(\d+): `).FindStringSubmatch(msg)
	if m == nil || !strings.Contains(msg, reason) || strings.Contains(msg, "\n") {
		t.Fatalf("error does not name the column, value and key: %s", msg)
	}
	id, _ := strconv.ParseInt(m[2], 10, 64)
	if id < 2 {
		t.Fatalf("the first order was rejected; pick a narrower column: %s", msg)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM orders"); n != id-1 {
		t.Errorf("orders holds %d rows, want the %d before order %d", n, id-1, id)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM orders WHERE order_id >= "+m[2]); n != 0 {
		t.Errorf("%d orders at or after the rejected one were written", n)
	}
}

// TestBatchRows: a batch's rows as statements of their own, updates
// with their derived table's names on every row.
func TestBatchRows(t *testing.T) {
	if got := splitValues(`1,'a,''b',_utf8mb4 X'2C',NULL, 2.5`); strings.Join(got, "|") != `1|'a,''b'|_utf8mb4 X'2C'|NULL|2.5` {
		t.Errorf("splitValues: %q", got)
	}
	tb := &Table{SQLName: "orders", Key: []string{"order_id"}, Columns: []string{"order_id", "status"}}
	for _, d := range []*Dialect{MySQLDialect, PostgresDialect} {
		ins := insertStmt(d, tb)
		ins.buf = append(ins.buf, "(1,'a'),(2,'b')"...)
		ins.ends = []int{len(ins.head) + 7, len(ins.head) + 15}
		ins.rows = 2
		upd := updateStmt(d, tb, []string{"status"}, []*field{{col: column{name: "status", typ: schemas.LogicalType{Kind: schemas.TypeString, Length: 16}}}})
		upd.buf = append(upd.buf, "SELECT 1 AS k0,'X' AS v0"...)
		upd.ends = []int{len(upd.buf)}
		upd.buf = append(upd.buf, " UNION ALL SELECT 2,'Y AS v0'"...)
		upd.ends = append(upd.ends, len(upd.buf))
		upd.rows = 2
		b := &batch{order: []*stmt{ins, upd}}
		rows := b.rows()
		if len(rows) != 4 {
			t.Fatalf("%s: %d rows", d.Name, len(rows))
		}
		if r := rows[1]; r.key() != "order_id=2" || !strings.HasSuffix(strings.TrimSuffix(r.sql, ins.idem), "VALUES (2,'b')") {
			t.Errorf("%s insert row: %q key %q", d.Name, r.sql, r.key())
		}
		if r := rows[3]; r.key() != "order_id=2" || !strings.Contains(r.sql, "(SELECT 2 AS k0,'Y AS v0' AS v0)") {
			t.Errorf("%s update row: %q key %q", d.Name, r.sql, r.key())
		}
		if v, _ := rows[2].value("status"); v != "'X'" {
			t.Errorf("%s update value %q", d.Name, v)
		}
	}
}
