package generator

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// The PostgreSQL sink is held to what the MySQL sink is: the rows
// --sample prints whatever the batching, idempotent retries, and a second
// run taking over from an interrupted one.

const pgLabDir = "../labs/orders_pg"

// loadPGLab loads the lab whose source is PostgreSQL, through lab.json.
func loadPGLab(t testing.TB) *schemas.Lab {
	t.Helper()
	lab, diags := schemas.NewParser().Load(pgLabDir, schemas.Options{})
	if diags.HasErrors() {
		t.Fatalf("loading %s: %s", pgLabDir, diags.Error())
	}
	return roundTrip(t, lab)
}

// pgLabDB is a fresh PostgreSQL database with the lab's tables.
type pgLabDB struct {
	db  *sql.DB
	cfg *pgx.ConnConfig
}

func newPGLabDB(t testing.TB, srv *testsrv.PostgresServer, lab *schemas.Lab) *pgLabDB {
	t.Helper()
	_, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	must(t, err)
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	d := PostgresDialect
	for _, tb := range lab.Tables {
		st := tb.Store(schemas.StorePostgres)
		if st == nil {
			continue
		}
		var cols, key []string
		for _, c := range tb.Columns {
			null := " NOT NULL"
			if c.Nullable {
				null = " NULL"
			}
			cols = append(cols, d.quoteID(c.Name)+" "+c.Type.Postgres()+null)
		}
		for _, k := range tb.Key {
			key = append(key, d.quoteID(k))
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(key, ",")+")")
		q := "CREATE TABLE " + d.quoteID(st.Name) + " (\n  " + strings.Join(cols, ",\n  ") + "\n)"
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return &pgLabDB{db: db, cfg: cfg}
}

func openPGSink(t testing.TB, cfg *pgx.ConnConfig) *Postgres {
	t.Helper()
	s, err := OpenPostgres(ctxTimeout(t, 30*time.Second), cfg)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// pgDump reads a table as dump does on MySQL: values as MySQL prints
// them (timestamps with their milliseconds), ordered by the first column.
func pgDump(t testing.TB, db *sql.DB, lab *schemas.Lab, table string) []string {
	t.Helper()
	tb := lab.Table(table)
	var cols []string
	for _, c := range tb.Columns {
		q := `"` + c.Name + `"`
		if c.Type.Kind == schemas.TypeTimestamp {
			q = "to_char(" + q + ", 'YYYY-MM-DD HH24:MI:SS.MS')"
		}
		cols = append(cols, q+"::text")
	}
	// By the first column's value, not its text ("10" before "2"):
	// qualified, since the output column of the same name is the text.
	rows, err := db.Query("SELECT " + strings.Join(cols, ", ") + ` FROM "` + table + `" ORDER BY "` + table + `"."` + tb.Columns[0].Name + `"`)
	must(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		must(t, rows.Scan(ptrs...))
		var parts []string
		for _, v := range vals {
			if !v.Valid {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, v.String)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	must(t, rows.Err())
	return out
}

func pgSample(t *testing.T, lab *schemas.Lab, plans []*Plan, count int64) map[string][]string {
	t.Helper()
	var streams []*Stream
	for _, p := range plans {
		streams = append(streams, NewStream(p, StreamConfig{Start: epoch, Count: count}))
	}
	var b bytes.Buffer
	must(t, Sample(&b, streams, 1<<30))
	return expectedTables(t, lab, b.Bytes())
}

// TestPostgresMatchesSampleAnyBatching is TestMatchesSampleAnyBatching on
// PostgreSQL: the same rows, whatever the statement size.
func TestPostgresMatchesSampleAnyBatching(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	plans := compile(t, lab, 99)
	const count = 1500
	want := pgSample(t, lab, plans, count)
	if len(want["orders"]) != count || len(want["payments"]) < count*9/10 {
		t.Fatalf("the sample has %d orders and %d payments", len(want["orders"]), len(want["payments"]))
	}
	for _, rows := range []int{1, 7, 1000} {
		ldb := newPGLabDB(t, srv, lab)
		sink := openPGSink(t, ldb.cfg)
		must(t, sink.Check(ctxTimeout(t, time.Minute), plans))
		_, err := Run(ctxTimeout(t, 5*time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count, BatchRows: rows, Resume: true})
		must(t, err)
		for _, table := range []string{"orders", "payments"} {
			compareTables(t, fmt.Sprintf("%s written %d rows at a time", table, rows), pgDump(t, ldb.db, lab, table), want[table])
		}
	}
}

// TestPostgresWallClock writes on the wall clock, where a payment's update
// of its order is a separate UPDATE … FROM (the logical clock folds most
// into the order's INSERT): the same tables as the sample.
func TestPostgresWallClock(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	for _, f := range lab.Producers[0].Follows {
		lo, hi := 0.05, 0.3
		f.Delay = &schemas.Dist{Kind: schemas.DistUniform, Min: &lo, Max: &hi}
	}
	plans := compile(t, lab, 3)
	ldb := newPGLabDB(t, srv, lab)
	sink := openPGSink(t, ldb.cfg)
	sum, err := Run(ctxTimeout(t, time.Minute), plans, sink, Options{Rate: 200, Count: 300, Resume: true})
	must(t, err)
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM orders"); n != 300 {
		t.Fatalf("%d orders, want 300 (%s)", n, sum.Line(-1))
	}
	if n := queryInt(t, ldb.db, `SELECT COUNT(*) FROM orders o JOIN payments p USING (order_id)
		WHERE o.order_status <> CASE p.payment_status WHEN 'PAID' THEN 'PAID' ELSE 'PAYMENT_FAILED' END
		   OR o.updated_at <> p.updated_at`); n != 0 {
		t.Errorf("%d orders not updated by their payment", n)
	}
	if sum.Producers[0].Follows[0].Rows() == 0 {
		t.Errorf("no payment written: %s", sum.Line(-1))
	}
}

// lostAck commits every third batch and then reports the connection lost,
// as when the server's acknowledgement of a COMMIT never arrives: the run
// sends the batch again, in its idempotent form.
type lostAck struct {
	*Postgres
	n, lost atomic.Int64
}

func (l *lostAck) Write(ctx context.Context, stmts []string) error {
	if err := l.Postgres.Write(ctx, stmts); err != nil {
		return err
	}
	if l.n.Add(1)%3 == 1 {
		l.lost.Add(1)
		return Transient(errors.New("connection lost before the COMMIT was acknowledged"))
	}
	return nil
}

// TestPostgresIdempotentRetry: batches written twice (the second time
// with INSERT … ON CONFLICT DO NOTHING and the same UPDATEs) leave the
// tables as written once.
func TestPostgresIdempotentRetry(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	plans := compile(t, lab, 7)
	const count = 2000
	want := pgSample(t, lab, plans, count)
	ldb := newPGLabDB(t, srv, lab)
	sink := &lostAck{Postgres: openPGSink(t, ldb.cfg)}
	_, err := Run(ctxTimeout(t, 2*time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count, BatchRows: 100, Resume: true, Log: func(string) {}})
	must(t, err)
	if sink.lost.Load() < 2 {
		t.Fatalf("only %d batches were sent twice", sink.lost.Load())
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" with batches sent twice", pgDump(t, ldb.db, lab, table), want[table])
	}
}

// TestPostgresInterruptedRunTakesOver is TestInterruptedRunTakesOver on
// PostgreSQL: a second run resumes after the last order, takes over the
// payments the first left pending (reading the orders' times back), and
// the tables end up as one undisturbed run writes them.
func TestPostgresInterruptedRunTakesOver(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	plans := compile(t, lab, 13)
	const count = 20_000
	want := pgSample(t, lab, plans, count)
	ldb := newPGLabDB(t, srv, lab)
	sink := openPGSink(t, ldb.cfg)
	stats := NewStats(plans)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := whenParents(stats, count/2, cancel)
	first, err := Run(ctx, plans, sink, Options{Logical: true, Start: epoch, Count: count, Resume: true, Stats: stats})
	wait()
	must(t, err)
	if !first.Interrupted || first.Dropped == 0 {
		t.Fatalf("the first run was not interrupted with payments pending: %+v", first)
	}
	next, err := sink.NextIndex(ctxTimeout(t, time.Minute), plans[0])
	must(t, err)
	logs := &logSink{}
	second, err := Run(ctxTimeout(t, time.Minute), plans, openPGSink(t, ldb.cfg), Options{Logical: true, Start: epoch, Count: count - next, Resume: true, Log: logs.log})
	must(t, err)
	t.Logf("first run: %s, %d dropped; second: from order %d, %d taken over", first.Line(-1), first.Dropped, second.First[0], second.Restored)
	if second.First[0] != next || second.Restored != first.Dropped {
		t.Errorf("the second run started at %d (want %d) and took over %d follow-ups, the first left %d", second.First[0], next, second.Restored, first.Dropped)
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" after an interrupted run and a second one", pgDump(t, ldb.db, lab, table), want[table])
	}
}

// TestPostgresCheckErrors: a missing table, a missing column and a wrong
// password are one-line messages; a closed port is transient.
func TestPostgresCheckErrors(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab := loadPGLab(t)
	plans := compile(t, lab, lab.Seed)
	ctx := ctxTimeout(t, time.Minute)

	_, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	must(t, err)
	err = openPGSink(t, cfg).Check(ctx, plans)
	if err == nil || !strings.Contains(err.Error(), "table orders does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing table: %v", err)
	}
	ldb := newPGLabDB(t, srv, lab)
	_, err = ldb.db.Exec("ALTER TABLE payments DROP COLUMN paid_at")
	must(t, err)
	err = openPGSink(t, ldb.cfg).Check(ctx, plans)
	if err == nil || !strings.Contains(err.Error(), "table payments does not match lab.json") {
		t.Errorf("missing column: %v", err)
	}
	gone := ldb.cfg.Copy()
	gone.Port = 1
	_, err = OpenPostgres(ctx, gone)
	if err == nil || !IsTransient(err) || !strings.Contains(err.Error(), "cannot reach PostgreSQL") {
		t.Errorf("closed port: %v (transient %v)", err, IsTransient(err))
	}
}
