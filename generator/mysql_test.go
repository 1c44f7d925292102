package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/go-sql-driver/mysql"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// expectedTables replays sample lines into the rows each table must hold
// at the end: inserts, then updates applied in order. Rows are spelt as
// dump spells them, sorted the same way.
func expectedTables(t *testing.T, lab *schemas.Lab, lines []byte) map[string][]string {
	t.Helper()
	rows := map[string]map[string]map[string]string{} // table → key → column → value
	for _, l := range scanLines(lines) {
		var ev struct {
			Table  string                     `json:"table"`
			Row    map[string]json.RawMessage `json:"row"`
			Update *struct {
				Table string                     `json:"table"`
				Key   map[string]json.RawMessage `json:"key"`
				Set   map[string]json.RawMessage `json:"set"`
			} `json:"update"`
		}
		must(t, json.Unmarshal([]byte(l), &ev))
		tb := lab.Table(ev.Table)
		key := text(ev.Row[tb.Key[0]])
		if rows[ev.Table] == nil {
			rows[ev.Table] = map[string]map[string]string{}
		}
		if _, dup := rows[ev.Table][key]; dup {
			t.Fatalf("sample inserts %s %s twice", ev.Table, key)
		}
		r := map[string]string{}
		for c, v := range ev.Row {
			r[c] = text(v)
		}
		rows[ev.Table][key] = r
		if u := ev.Update; u != nil {
			pt := lab.Table(u.Table)
			target := rows[u.Table][text(u.Key[pt.Key[0]])]
			if target == nil {
				t.Fatalf("sample updates %s %s before inserting it", u.Table, text(u.Key[pt.Key[0]]))
			}
			for c, v := range u.Set {
				target[c] = text(v)
			}
		}
	}
	out := map[string][]string{}
	for name, byKey := range rows {
		tb := lab.Table(name)
		var keys []string
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, _ := strconv.ParseInt(keys[i], 10, 64)
			b, _ := strconv.ParseInt(keys[j], 10, 64)
			return a < b
		})
		for _, k := range keys {
			var vals []string
			for _, c := range tb.Columns {
				v, ok := byKey[k][c.Name]
				if !ok {
					v = "NULL"
				}
				vals = append(vals, v)
			}
			out[name] = append(out[name], strings.Join(vals, "|"))
		}
	}
	return out
}

func text(raw json.RawMessage) string {
	if string(raw) == "null" {
		return "NULL"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func compareTables(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s row %d:\n got  %s\n want %s", what, i, got[i], want[i])
			return
		}
	}
}

// TestMatchesSampleAnyBatching writes the same events with statements of
// 1, 7 and 1000 rows and checks that each database holds exactly what
// --sample prints (orders with their updates applied, payments), so the
// rows depend neither on batching nor on the output path.
func TestMatchesSampleAnyBatching(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	plans := compile(t, lab, 99)
	const count = 1500
	var streams []*Stream
	for _, p := range plans {
		streams = append(streams, NewStream(p, StreamConfig{Start: epoch, Count: count}))
	}
	var b bytes.Buffer
	must(t, Sample(&b, streams, 1<<30))
	want := expectedTables(t, lab, b.Bytes())
	if len(want["orders"]) != count || len(want["payments"]) < count*9/10 {
		t.Fatalf("the sample has %d orders and %d payments", len(want["orders"]), len(want["payments"]))
	}
	for _, rows := range []int{1, 7, 1000} {
		ldb := newLabDB(t, srv, lab)
		sink := openSink(t, ldb.cfg)
		_, err := Run(ctxTimeout(t, 5*time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: count, BatchRows: rows, Resume: true})
		must(t, err)
		for _, table := range []string{"orders", "payments"} {
			compareTables(t, fmt.Sprintf("%s written %d rows at a time", table, rows), dump(t, ldb.db, table), want[table])
		}
	}
}

// checkIntegrity checks what must hold of any database the seed lab's
// producer wrote: orders numbered 1..n without gaps, every payment for an
// existing order and at most one per order, payment numbers without
// gaps (when the run wrote every follow-up), every order's status agreeing with its payment, and every payment
// no earlier than its order.
func checkIntegrity(t *testing.T, ldb *labDB, complete bool) (orders, payments int64) {
	t.Helper()
	db := ldb.db
	// The checks join payments to orders by order_id.
	if _, err := db.Exec("CREATE INDEX IF NOT EXISTS payments_order ON payments (order_id)"); err != nil {
		t.Fatal(err)
	}
	orders = queryInt(t, db, "SELECT COUNT(*) FROM orders")
	if mx := queryInt(t, db, "SELECT MAX(order_id) FROM orders"); mx != orders || queryInt(t, db, "SELECT MIN(order_id) FROM orders") != min(1, orders) {
		t.Errorf("%d orders numbered up to %d: gaps", orders, mx)
	}
	payments = queryInt(t, db, "SELECT COUNT(*) FROM payments")
	// Payments are numbered in the order of their orders, and written when
	// due: a run that stopped early leaves the numbers of the payments
	// still pending unused.
	if mx := queryInt(t, db, "SELECT MAX(payment_id) FROM payments"); complete && mx != payments {
		t.Errorf("%d payments numbered up to %d: gaps", payments, mx)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM payments p LEFT JOIN orders o ON o.order_id = p.order_id WHERE o.order_id IS NULL"); n != 0 {
		t.Errorf("%d payments for orders that do not exist", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM (SELECT order_id FROM payments GROUP BY order_id HAVING COUNT(*) > 1) x"); n != 0 {
		t.Errorf("%d orders with more than one payment", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id
		WHERE NOT (p.payment_id IS NULL AND o.order_status = 'CREATED'
		        OR p.payment_status = 'PAID' AND o.order_status = 'PAID' AND p.paid_at = o.updated_at
		        OR p.payment_status = 'FAILED' AND o.order_status = 'PAYMENT_FAILED' AND p.paid_at IS NULL)`); n != 0 {
		t.Errorf("%d orders whose status does not agree with their payment", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE p.updated_at < o.created_at OR p.amount <> o.order_amount OR o.updated_at <> p.updated_at"); n != 0 {
		t.Errorf("%d payments before their order, for another amount, or not matching the order's update", n)
	}
	return orders, payments
}

// TestBackfillOneHour backfills one hour of the seed lab (5 orders a
// second) on the logical clock: the orders span the hour up to now, every
// payment follows its order, and it takes seconds.
func TestBackfillOneHour(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	ldb := newLabDB(t, srv, lab)
	sink := openSink(t, ldb.cfg)
	plans := compile(t, lab, lab.Seed)
	must(t, sink.Check(ctxTimeout(t, time.Minute), plans))
	began := time.Now()
	sum, err := Run(ctxTimeout(t, 5*time.Minute), plans, sink, Options{Logical: true, Count: 18000, Resume: true})
	must(t, err)
	took := time.Since(began)
	t.Logf("one hour of the seed lab (18,000 orders) backfilled in %s: %s", took.Round(time.Millisecond), sum.Line(-1))
	orders, payments := checkIntegrity(t, ldb, true)
	if orders != 18000 || payments != sum.Producers[0].Follows[0].Rows() || sum.Dropped != 0 {
		t.Errorf("%d orders and %d payments written, %d dropped; the run reports %s", orders, payments, sum.Dropped, sum.Line(-1))
	}
	var first, last time.Time
	must(t, ldb.tdb.QueryRow("SELECT MIN(created_at), MAX(created_at) FROM orders").Scan(&first, &last))
	if span := last.Sub(first); span != time.Hour-200*time.Millisecond {
		t.Errorf("orders span %s, want 59m59.8s", span)
	}
	if d := time.Since(last); d < 0 || d > took+5*time.Second {
		t.Errorf("the last order is at %s, %s before now; a backfill ends at the time it runs", last, d)
	}
	if took > 60*time.Second {
		t.Errorf("the backfill took %s", took)
	}
}

// TestResumeContinues runs the producer twice, 1000 then 500 orders, and
// gets the very tables one run of 1500 writes: the second run resumes
// after the largest order number, on the same logical timeline.
func TestResumeContinues(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	plans := compile(t, lab, 5)
	once := newLabDB(t, srv, lab)
	_, err := Run(ctxTimeout(t, time.Minute), plans, openSink(t, once.cfg), Options{Logical: true, Start: epoch, Count: 1500, Resume: true})
	must(t, err)
	twice := newLabDB(t, srv, lab)
	sink := openSink(t, twice.cfg)
	for _, n := range []int64{1000, 500} {
		sum, err := Run(ctxTimeout(t, time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: n, Resume: true})
		must(t, err)
		if n == 500 && sum.First[0] != 1000 {
			t.Fatalf("the second run started at order number %d, want 1000", sum.First[0])
		}
	}
	for _, table := range []string{"orders", "payments"} {
		compareTables(t, table+" after two runs", dump(t, twice.db, table), dump(t, once.db, table))
	}
	checkIntegrity(t, twice, true)
}

// TestWallClockRate runs at 200 orders a second with short payment
// delays: the orders come on schedule, every payment arrives, and no row
// reaches the database before its time. How late rows are is a speed
// target, shown by BenchmarkOnTime, not asserted here: a busy machine
// must not fail the suite.
func TestWallClockRate(t *testing.T) {
	lab := loadLab(t, "payment_delay=0.5s", "payment_delay_max=2s")
	sum, took, ldb := runTimed(t, lab, 200, 600)
	checkIntegrity(t, ldb, true)
	// 600 orders at 200/s take 3s, then the last payments (at most 2s).
	if took < 2990*time.Millisecond || took > 30*time.Second {
		t.Errorf("the run took %s, want 3s of orders and 2s more for payments (30s allowed on a busy machine)", took)
	}
	var first, last time.Time
	must(t, ldb.tdb.QueryRow("SELECT MIN(created_at), MAX(created_at) FROM orders").Scan(&first, &last))
	if span := last.Sub(first); span != 2995*time.Millisecond {
		t.Errorf("orders span %s, want 2.995s (600 at 200/s)", span)
	}
	_ = sum
}

// BenchmarkOnTime keeps over 10,000 payments pending (2,700 orders a
// second, each paid 3.5 to 4.5 seconds later) and reports how late rows
// reach the database after their due time; the target is a p99 within
// 50 ms:
//
//	LABGEN_TEST_SERVERS=require go test ./generator -run '^$' -bench OnTime -benchtime 1x
func BenchmarkOnTime(b *testing.B) {
	for i := 0; i < b.N; i++ {
		lab := loadLab(b)
		lab.Producers[0].Follows[0].Delay = &schemas.Dist{Kind: schemas.DistUniform, Min: f64(3.5), Max: f64(4.5)}
		sum, _, _ := runTimed(b, lab, 2700, 15000)
		if sum.maxPending < 10000 {
			b.Errorf("at most %d payments were pending, want about 10,000", sum.maxPending)
		}
		b.ReportMetric(float64(sum.maxPending), "max-pending")
		b.ReportMetric(sum.late["orders"].p99, "orders-p99-ms")
		b.ReportMetric(sum.late["payments"].p99, "payments-p99-ms")
		b.ReportMetric(sum.late["payments"].max, "payments-max-ms")
	}
}

type timedSummary struct {
	*Summary
	maxPending int64
	// late is how many milliseconds after their time rows were written,
	// per table.
	late map[string]lateness
}

type lateness struct{ p50, p99, max float64 }

// runTimed runs the lab on the wall clock at rate for count orders into a
// fresh database whose tables have a written_at column the producer does
// not write, so the server stamps each row with the time it was inserted.
// It checks that no row is written before its time and measures how late
// the rows are.
func runTimed(t testing.TB, lab *schemas.Lab, rate float64, count int64) (timedSummary, time.Duration, *labDB) {
	t.Helper()
	srv := testsrv.MariaDB(t)
	ldb := newLabDB(t, srv, lab)
	for _, table := range []string{"orders", "payments"} {
		_, err := ldb.db.Exec("ALTER TABLE " + table + " ADD written_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)")
		must(t, err)
	}
	cfg := ldb.cfg.Clone()
	cfg.Params = map[string]string{"time_zone": "'+00:00'"} // CURRENT_TIMESTAMP in UTC, like the producer's times
	sink := openSink(t, cfg)
	plans := compile(t, lab, lab.Seed)
	stats := NewStats(plans)
	var maxPending int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				maxPending = max(maxPending, stats.Snapshot().Pending)
			}
		}
	}()
	began := time.Now()
	sum, err := Run(ctxTimeout(t, 2*time.Minute), plans, sink, Options{Rate: rate, Count: count, Resume: true, Stats: stats})
	took := time.Since(began)
	close(stop)
	<-polled
	must(t, err)
	orders := queryInt(t, ldb.db, "SELECT COUNT(*) FROM orders")
	payments := queryInt(t, ldb.db, "SELECT COUNT(*) FROM payments")
	if orders != count || payments != sum.Producers[0].Follows[0].Rows() || sum.Dropped != 0 {
		t.Fatalf("%d orders and %d payments; the run says %s, %d dropped", orders, payments, sum.Line(-1), sum.Dropped)
	}
	byTable := map[string]lateness{}
	for _, c := range []struct{ table, at string }{{"orders", "created_at"}, {"payments", "updated_at"}} {
		var late []float64
		rows, err := ldb.db.Query("SELECT TIMESTAMPDIFF(MICROSECOND, " + c.at + ", written_at) FROM " + c.table)
		must(t, err)
		for rows.Next() {
			var us int64
			must(t, rows.Scan(&us))
			late = append(late, float64(us)/1000)
		}
		must(t, rows.Err())
		rows.Close()
		slices.Sort(late)
		p50, p99, worst := late[len(late)/2], late[len(late)*99/100], late[len(late)-1]
		t.Logf("%s at %g/s (up to %d pending): written %.0f ms (median), %.0f ms (p99), %.0f ms (max) after their time",
			c.table, rate, maxPending, p50, p99, worst)
		if late[0] < -1 { // the server rounds to the millisecond
			t.Errorf("%s: a row was written %.1f ms before its time", c.table, -late[0])
		}
		byTable[c.table] = lateness{p50, p99, worst}
	}
	return timedSummary{sum, maxPending, byTable}, took, ldb
}

// TestGracefulShutdown interrupts a wall-clock run: Run returns without
// error, everything generated is in the database, and a second run picks
// up where the first stopped.
func TestGracefulShutdown(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	ldb := newLabDB(t, srv, lab)
	sink := openSink(t, ldb.cfg)
	plans := compile(t, lab, lab.Seed)
	for round := 1; round <= 2; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(1200*time.Millisecond, cancel)
		sum, err := Run(ctx, plans, sink, Options{Rate: 100, Resume: true})
		cancel()
		if err != nil {
			t.Fatalf("round %d: an interrupted run returned %v", round, err)
		}
		if !sum.Interrupted {
			t.Errorf("round %d: the summary does not say the run was interrupted", round)
		}
		orders, payments := checkIntegrity(t, ldb, false)
		if want := int64(round) * sum.Producers[0].Rows; round == 1 && orders != want {
			t.Errorf("round %d: %d orders in the table, the run wrote %d", round, orders, sum.Producers[0].Rows)
		}
		if sum.Producers[0].Rows < 100 || payments < 1 || sum.Dropped < 1 {
			t.Errorf("round %d: %s, %d dropped; want about 120 orders, a few payments and pending follow-ups", round, sum.Line(-1), sum.Dropped)
		}
		if round == 2 && sum.First[0] == 0 {
			t.Errorf("the second run did not resume")
		}
	}
}

func TestCheckErrors(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	plans := compile(t, lab, lab.Seed)
	ctx := ctxTimeout(t, time.Minute)

	// A database without the lab's tables.
	_, dsn := srv.NewDatabase(t)
	cfg, err := mysql.ParseDSN(dsn)
	must(t, err)
	sink := openSink(t, cfg)
	err = sink.Check(ctx, plans)
	if err == nil || !strings.Contains(err.Error(), "table orders does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing table: %v", err)
	}

	// A table that lacks a column.
	ldb := newLabDB(t, srv, lab)
	_, err = ldb.db.Exec("ALTER TABLE payments DROP COLUMN paid_at")
	must(t, err)
	err = openSink(t, ldb.cfg).Check(ctx, plans)
	if err == nil || !strings.Contains(err.Error(), "table payments does not match lab.json") {
		t.Errorf("missing column: %v", err)
	}

	// A wrong password, a port nobody listens on.
	user, _ := srv.NewUser(t, "SELECT, INSERT, UPDATE ON *.*")
	bad, _ := mysql.ParseDSN(srv.DSN(user, "wrong", ldb.name))
	_, err = OpenMySQL(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "refused user") {
		t.Errorf("wrong password: %v", err)
	}
	nowhere, _ := mysql.ParseDSN("u:p@tcp(127.0.0.1:1)/db")
	_, err = OpenMySQL(ctx, nowhere)
	if err == nil || !strings.Contains(err.Error(), "cannot reach MySQL at 127.0.0.1:1") {
		t.Errorf("closed port: %v", err)
	}

	// A user that may read but not write: the run stops with one line.
	ro, pw := srv.NewUser(t, "SELECT ON "+ldb.name+".*")
	rocfg, _ := mysql.ParseDSN(srv.DSN(ro, pw, ldb.name))
	_, err = Run(ctx, plans, openSink(t, rocfg), Options{Logical: true, Count: 10, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "may not write") || strings.Contains(err.Error(), "\n") {
		t.Errorf("read-only user: %v", err)
	}
}

// TestBackfillTwice: a second backfill without --start continues after the
// first one's orders, so that order times keep increasing with their
// numbers.
func TestBackfillTwice(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := loadLab(t)
	ldb := newLabDB(t, srv, lab)
	sink := openSink(t, ldb.cfg)
	plans := compile(t, lab, lab.Seed)
	for range 2 {
		_, err := Run(ctxTimeout(t, time.Minute), plans, sink, Options{Logical: true, Count: 1000, Resume: true})
		must(t, err)
	}
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM orders a JOIN orders b ON b.order_id = a.order_id + 1 WHERE b.created_at <= a.created_at"); n != 0 {
		t.Errorf("%d orders are not later than the order before them", n)
	}
	checkIntegrity(t, ldb, true)
}

func TestTwoProducers(t *testing.T) {
	srv := testsrv.MariaDB(t)
	lab := twoProducers(t)
	ldb := newLabDB(t, srv, lab)
	plans := compile(t, lab, 1)
	sink := openSink(t, ldb.cfg)
	must(t, sink.Check(ctxTimeout(t, time.Minute), plans))
	sum, err := Run(ctxTimeout(t, time.Minute), plans, sink, Options{Logical: true, Start: epoch, Count: 2000, Resume: true})
	must(t, err)
	for _, table := range []string{"orders", "kiosk_orders"} {
		if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM "+table); n != 2000 {
			t.Errorf("%s: %d rows, want 2000", table, n)
		}
	}
	if n := queryInt(t, ldb.db, "SELECT COUNT(*) FROM kiosk_payments p JOIN kiosk_orders o USING (order_id) WHERE o.order_status = 'CREATED'"); n != 0 {
		t.Errorf("%d kiosk orders with a payment are still CREATED", n)
	}
	t.Log(sum.Line(-1))
}
