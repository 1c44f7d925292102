package generator

import (
	"context"
	"database/sql"
	"github.com/go-sql-driver/mysql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// ownLabDB is newLabDB on a server the test owns.
func ownLabDB(t *testing.T, srv *testsrv.OwnedMariaDB, lab *schemas.Lab) *labDB {
	t.Helper()
	name, dsn := srv.NewDatabase(t)
	db := openDB(t, dsn)
	createTables(t, db, lab)
	cfg, err := mysql.ParseDSN(dsn)
	must(t, err)
	return &labDB{name: name, dsn: dsn, db: db, tdb: openDB(t, dsn+"?parseTime=true"), cfg: cfg}
}

// whenParents calls f once the run has written at least n parents.
func whenParents(stats *Stats, n int64, f func()) (wait func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			if stats.Snapshot().Parents() >= n {
				f()
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// restartable is a test server that can be killed and started again.
type restartable interface {
	Kill(testing.TB)
	Start(testing.TB)
}

// outage is what a run saw of a server killed once mid-run.
type outage struct {
	sum                  *Summary
	parentsAt, pendingAt int64
	logs                 *logSink
}

// runKilledAt runs the producer and kills srv once at least at parents are
// written, starting it again 1.5 s later; the run must end without error.
func runKilledAt(t *testing.T, srv restartable, plans []*Plan, sink Sink, at int64, timeout time.Duration, opts Options) outage {
	t.Helper()
	o := outage{logs: &logSink{}}
	opts.Stats = NewStats(plans)
	opts.Log = o.logs.log
	opts.Resume = true
	wait := whenParents(opts.Stats, at, func() {
		snap := opts.Stats.Snapshot()
		o.parentsAt, o.pendingAt = snap.Parents(), snap.Pending
		srv.Kill(t)
		time.Sleep(1500 * time.Millisecond)
		srv.Start(t)
	})
	sum, err := Run(ctxTimeout(t, timeout), plans, sink, opts)
	wait()
	must(t, err)
	o.sum = sum
	t.Logf("killed at %d parents, %d follow-ups pending; %s; log:\n%s", o.parentsAt, o.pendingAt, sum.Line(-1), o.logs)
	return o
}

// TestServerRestartMidRun kills MariaDB in the middle of a backfill and
// starts it again: the producer reports the outage, retries, and ends
// with exactly the tables an undisturbed run writes (nothing lost,
// nothing twice, payments and their updates included).
func TestServerRestartMidRun(t *testing.T) {
	srv := testsrv.OwnMariaDB(t)
	lab := loadLab(t)
	plans := compile(t, lab, 11)
	const count = 60_000
	ref := ownLabDB(t, srv, lab)
	_, err := Run(ctxTimeout(t, 2*time.Minute), plans, openSink(t, ref.cfg), Options{Logical: true, Start: epoch, Count: count, Resume: true})
	must(t, err)

	ldb := ownLabDB(t, srv, lab)
	o := runKilledAt(t, srv, plans, openSink(t, ldb.cfg), count/4, 2*time.Minute, Options{Logical: true, Start: epoch, Count: count, MaxBackoff: 500 * time.Millisecond})
	sum, logs := o.sum, o.logs
	if o.parentsAt == 0 || o.parentsAt >= count {
		t.Fatalf("the server was not killed mid-run (at %d orders)", o.parentsAt)
	}
	if !logs.contains("MySQL write failed") || !logs.contains("MySQL is back") {
		t.Errorf("the outage was not reported:\n%s", logs)
	}
	if sum.Retries == 0 {
		t.Error("no retries counted")
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" after a restart", dump(t, ldb.db, table), dump(t, ref.db, table))
	}
	checkIntegrity(t, ldb, true)
}

// TestServerRestartWallClock restarts MariaDB under a wall-clock run with
// short payment delays: the payments pending during the outage survive it,
// and every order and payment the stream holds is written exactly once.
func TestServerRestartWallClock(t *testing.T) {
	srv := testsrv.OwnMariaDB(t)
	lab := loadLab(t, "payment_delay=1s", "payment_delay_max=3s")
	plans := compile(t, lab, 12)
	const count = 2000
	ldb := ownLabDB(t, srv, lab)
	o := runKilledAt(t, srv, plans, openSink(t, ldb.cfg), 600, 2*time.Minute, Options{Rate: 400, Count: count, MaxBackoff: 300 * time.Millisecond})
	if o.pendingAt == 0 || !o.logs.contains("MySQL is back") {
		t.Fatalf("the server was not restarted mid-run with payments pending")
	}
	checkIntegrity(t, ldb, true)

	// The rows, leaving out times (they depend on when the run started),
	// are the stream's.
	want := map[string][]string{}
	var b strings.Builder
	streams := []*Stream{NewStream(plans[0], StreamConfig{Start: epoch, Count: count})}
	must(t, Sample(&b, streams, 1<<30))
	exp := expectedTables(t, lab, []byte(b.String()))
	for table, rows := range exp {
		for _, r := range rows {
			want[table] = append(want[table], withoutTimes(r))
		}
	}
	for table, q := range map[string]string{
		"orders":   "SELECT order_id, customer_id, category, order_amount, order_status FROM orders ORDER BY order_id",
		"payments": "SELECT payment_id, order_id, payment_status, amount, paid_at IS NULL FROM payments ORDER BY payment_id",
	} {
		compareTables(t, table+" after a restart", rowsText(t, ldb.db, q), want[table])
	}
}

// withoutTimes drops the time columns of a dumped orders or payments row,
// keeping for paid_at only whether it is NULL.
func withoutTimes(row string) string {
	f := strings.Split(row, "|")
	if len(f) == 7 { // orders: order_id … order_status, created_at, updated_at
		return strings.Join(f[:5], "|")
	}
	null := "0"
	if f[4] == "NULL" {
		null = "1"
	}
	return strings.Join(append(f[:4:4], null), "|")
}

func rowsText(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	must(t, err)
	defer rows.Close()
	cols, _ := rows.Columns()
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
			parts = append(parts, v.String)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	must(t, rows.Err())
	return out
}

// TestInterruptedRunTakesOver stops a backfill half-way (SIGINT: Run's
// context cancelled), with payments still pending, then runs again: the
// second run resumes after the last order, takes over the payments the
// first one left pending, and the tables end up exactly as one
// undisturbed run writes them.
func TestInterruptedRunTakesOver(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	plans := compile(t, lab, 13)
	const count = 20_000
	ref := newLabDB(t, srv, lab)
	_, err := Run(ctxTimeout(t, time.Minute), plans, openSink(t, ref.cfg), Options{Logical: true, Start: epoch, Count: count, Resume: true})
	must(t, err)

	ldb := newLabDB(t, srv, lab)
	sink := openSink(t, ldb.cfg)
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
	second, err := Run(ctxTimeout(t, time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count - next, Resume: true, Log: logs.log})
	must(t, err)
	t.Logf("first run: %s, %d dropped; second: from order %d, %d taken over", first.Line(-1), first.Dropped, second.First[0], second.Restored)
	if second.Restored != first.Dropped {
		t.Errorf("the second run took over %d follow-ups, the first left %d", second.Restored, first.Dropped)
	}
	if !logs.contains("took over") {
		t.Errorf("taking over was not reported:\n%s", logs)
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" after an interrupted run and a second one", dump(t, ldb.db, table), dump(t, ref.db, table))
	}
	checkIntegrity(t, ldb, true)
}

// TestPostgresServerRestartMidRun is TestServerRestartMidRun on
// PostgreSQL: the server is killed (postgres and every backend) in the
// middle of a backfill and started again, recovering from its WAL; the
// producer reports the outage, retries, and the tables end up exactly as
// --sample prints them: nothing lost, nothing twice.
func TestPostgresServerRestartMidRun(t *testing.T) {
	srv := testsrv.OwnPostgres(t)
	lab := loadPGLab(t)
	plans := compile(t, lab, 11)
	const count = 60_000
	want := pgSample(t, lab, plans, count)

	ldb := newPGLabDB(t, srv.PostgresServer, lab)
	o := runKilledAt(t, srv, plans, openPGSink(t, ldb.cfg), count/4, 3*time.Minute, Options{Logical: true, Start: epoch, Count: count, MaxBackoff: 500 * time.Millisecond})
	sum, logs := o.sum, o.logs
	if o.parentsAt == 0 || o.parentsAt >= count {
		t.Fatalf("the server was not killed mid-run (at %d orders)", o.parentsAt)
	}
	if !logs.contains("PostgreSQL write failed") || !logs.contains("PostgreSQL is back") {
		t.Errorf("the outage was not reported:\n%s", logs)
	}
	if sum.Retries == 0 {
		t.Error("no retries counted")
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" after a restart", pgDump(t, ldb.db, lab, table), want[table])
	}
}

// TestPostgresServerRestartWallClock is TestServerRestartWallClock on
// PostgreSQL: the payments pending while the server is down survive it,
// and every order and payment the stream holds is written exactly once.
func TestPostgresServerRestartWallClock(t *testing.T) {
	srv := testsrv.OwnPostgres(t)
	lab := loadPGLab(t)
	for _, f := range lab.Producers[0].Follows {
		lo, hi := 1.0, 3.0 // seconds: payments pending across the outage
		f.Delay = &schemas.Dist{Kind: schemas.DistUniform, Min: &lo, Max: &hi}
	}
	plans := compile(t, lab, 12)
	const count = 2000
	ldb := newPGLabDB(t, srv.PostgresServer, lab)
	o := runKilledAt(t, srv, plans, openPGSink(t, ldb.cfg), 600, 2*time.Minute, Options{Rate: 400, Count: count, MaxBackoff: 300 * time.Millisecond})
	if o.pendingAt == 0 || !o.logs.contains("PostgreSQL is back") {
		t.Fatalf("the server was not restarted mid-run with payments pending")
	}
	// The rows, leaving out times (they depend on when the run started),
	// are the stream's.
	want := map[string][]string{}
	for table, rows := range pgSample(t, lab, plans, count) {
		for _, r := range rows {
			want[table] = append(want[table], withoutTimes(r))
		}
	}
	for table, q := range map[string]string{
		"orders":   "SELECT order_id, customer_id, category, order_amount, order_status FROM orders ORDER BY order_id",
		"payments": "SELECT payment_id, order_id, payment_status, amount, (paid_at IS NULL)::int FROM payments ORDER BY payment_id",
	} {
		compareTables(t, table+" after a restart", rowsText(t, ldb.db, q), want[table])
	}
	if n := queryInt(t, ldb.db, `SELECT COUNT(*) FROM orders o JOIN payments p USING (order_id)
		WHERE o.order_status <> CASE p.payment_status WHEN 'PAID' THEN 'PAID' ELSE 'PAYMENT_FAILED' END
		   OR o.updated_at <> p.updated_at`); n != 0 {
		t.Errorf("%d orders not updated by their payment", n)
	}
}
