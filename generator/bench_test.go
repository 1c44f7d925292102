package generator

import (
	"context"
	"database/sql"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

// BenchmarkPendingMemory measures the memory one pending follow-up takes
// when 1,000,000 are pending (the bound: 128 bytes).
func BenchmarkPendingMemory(b *testing.B) {
	const n = 1_000_000
	lab := loadLab(b)
	plans := compile(b, lab, lab.Seed)
	// A delay far longer than the run keeps every follow-up pending.
	for _, f := range plans[0].Follows {
		d, err := newNumeric(&schemas.Dist{Kind: schemas.DistConstant, Value: 1e6})
		if err != nil {
			b.Fatal(err)
		}
		f.delay = d
	}
	b.ReportAllocs()
	var perPending float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := NewStream(plans[0], StreamConfig{Start: epoch})
		for i := 0; s.Pending() < n; i++ {
			if i > 2*n {
				b.Fatalf("%d events gave only %d pending follow-ups", i, s.Pending())
			}
			s.Next()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perPending = float64(after.HeapAlloc-before.HeapAlloc) / float64(s.Pending())
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perPending, "bytes/pending")
	if perPending > 128 {
		b.Errorf("%.1f bytes per pending follow-up, want at most 128", perPending)
	}
}

// BenchmarkProducerVsInsert compares, on one MariaDB and side by side,
// the producer with --rate max against what the same server accepts from
// prepared statements, each on fresh tables, in alternating order:
//
//   - insert: plain 1000-row INSERTs of the very rows the producer writes
//     (orders and payments), built before the clock starts: the issue's
//     baseline;
//   - same-work: the producer's own statements (the same INSERTs, an
//     order whose payment falls in the same transaction already in its
//     paid or failed state, plus the multi-row UPDATEs that mark the other
//     orders paid or failed), built before the clock starts: what the
//     server can do of the producer's work.
//
// It reports rows inserted per second (orders + payments), row writes per
// second (inserts + the UPDATEs actually sent), the ratios: producer/insert
// on rows inserted (the figure) and on row writes, and
// producer/same-work (the producer's own overhead); and the fraction of
// the order updates combined with the order's INSERT (absorbed).
// LABGEN_BENCH_ORDERS sets the orders per round (default 100,000).
//
//	go test ./generator -run '^$' -bench ProducerVsInsert -benchtime 3x
func BenchmarkProducerVsInsert(b *testing.B) {
	srv := testsrv.MariaDB(b)
	lab := loadLab(b)
	benchProducerVsInsert(b, lab, MySQLDialect, func() (*sql.DB, Sink) {
		ldb := newLabDB(b, srv, lab)
		return ldb.db, openSink(b, ldb.cfg)
	})
}

// BenchmarkPostgresProducerVsInsert is BenchmarkProducerVsInsert on one
// PostgreSQL (the lab whose source is PostgreSQL): the producer's
// INSERT … ON CONFLICT and UPDATE … FROM against plain 1000-row INSERTs
// on the same server.
//
//	go test ./generator -run '^$' -bench PostgresProducerVsInsert -benchtime 3x
func BenchmarkPostgresProducerVsInsert(b *testing.B) {
	srv := testsrv.Postgres(b)
	lab := loadPGLab(b)
	benchProducerVsInsert(b, lab, PostgresDialect, func() (*sql.DB, Sink) {
		ldb := newPGLabDB(b, srv, lab)
		return ldb.db, openPGSink(b, ldb.cfg)
	})
}

// benchProducerVsInsert is the comparison on any server: fresh returns
// a database with the lab's empty tables and a producer's sink on it.
func benchProducerVsInsert(b *testing.B, lab *schemas.Lab, d *Dialect, fresh func() (*sql.DB, Sink)) {
	orders := int64(100_000)
	if v := os.Getenv("LABGEN_BENCH_ORDERS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("LABGEN_BENCH_ORDERS=%q: want a positive number", v)
		}
		orders = n
	}
	plans := compile(b, lab, lab.Seed)

	inserts, rows := plainInserts(d, plans[0], orders)
	var work [][]string
	rec := &recordingSink{d: d}
	if _, err := Run(context.Background(), plans, rec, Options{Logical: true, Count: orders, Start: epoch}); err != nil {
		b.Fatal(err)
	}
	work = rec.batches
	var absorbed int64
	updates := int64(0)
	for _, f := range plans[0].Follows {
		if f.update != nil {
			for _, ev := range followEvents(plans[0], orders) {
				if ev.Follow >= 0 && plans[0].Follows[ev.Follow] == f {
					updates++
				}
			}
		}
	}

	exec := func(batches [][]string) float64 {
		db, _ := fresh()
		conn, err := db.Conn(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		t0 := time.Now()
		for _, batch := range batches {
			for _, s := range batch {
				if _, err := conn.ExecContext(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		}
		return time.Since(t0).Seconds()
	}
	var prodTime, insTime, workTime float64
	rounds := 0
	runs := []func(){
		func() { insTime += exec([][]string{inserts}) },
		func() { workTime += exec(work) },
		func() {
			_, sink := fresh()
			t0 := time.Now()
			sum, err := Run(context.Background(), plans, sink, Options{Logical: true, Count: orders, Start: epoch, Resume: true})
			if err != nil {
				b.Fatal(err)
			}
			prodTime += time.Since(t0).Seconds()
			if sum.Rows() != rows {
				b.Fatalf("the producer wrote %d rows, the baseline %d", sum.Rows(), rows)
			}
			absorbed = sum.Absorbed
		},
	}
	for b.Loop() {
		for k := range runs {
			runs[(k+rounds)%len(runs)]()
		}
		rounds++
	}
	n := float64(rounds)
	prodIns := float64(rows) * n / prodTime
	sent := updates - absorbed // UPDATEs the server performs
	prodWrites := float64(rows+sent) * n / prodTime
	ins := float64(rows) * n / insTime
	same := float64(rows+sent) * n / workTime
	b.ReportMetric(prodIns, "producer-rows/s")
	b.ReportMetric(ins, "insert-rows/s")
	b.ReportMetric(prodIns/ins, "ratio")
	b.ReportMetric(prodWrites/ins, "writes-ratio")
	b.ReportMetric(prodWrites/same, "same-work-ratio")
	b.ReportMetric(float64(absorbed)/float64(updates), "absorbed")
	b.Logf("%s, %d orders per round, %d rounds: %d rows inserted (orders + payments), %d order updates, %d (%.1f%%) combined with the order's INSERT, %d sent as UPDATEs",
		d.Server, orders, rounds, rows, updates, absorbed, 100*float64(absorbed)/float64(updates), sent)
	b.Logf("plain 1000-row INSERTs:         %8.0f rows/s", ins)
	b.Logf("producer --rate max:            %8.0f rows inserted/s  (ratio %.2f)", prodIns, prodIns/ins)
	b.Logf("                                %8.0f row writes/s     (ratio %.2f, counting the UPDATEs sent as writes)", prodWrites, prodWrites/ins)
	b.Logf("producer's statements prepared: %8.0f row writes/s     (producer/prepared %.2f)", same, prodWrites/same)
}

// recordingSink keeps the statements of every batch, in their first
// (plain) form, in dialect d.
type recordingSink struct {
	d       *Dialect
	batches [][]string
}

func (r *recordingSink) Dialect() *Dialect { return r.d }

func (r *recordingSink) NextIndex(context.Context, *Plan) (int64, error) { return 0, nil }
func (r *recordingSink) Write(_ context.Context, s []string) error {
	r.batches = append(r.batches, s)
	return nil
}

func followEvents(p *Plan, n int64) []Event {
	s := NewStream(p, StreamConfig{Start: epoch, Count: n})
	var out []Event
	for {
		ev, ok := s.Next()
		if !ok {
			return out
		}
		if ev.Follow >= 0 {
			out = append(out, ev)
		}
	}
}

// plainInserts builds 1000-row INSERT statements, in dialect d, of the
// rows a producer writes for n orders: the orders, then the payments.
func plainInserts(d *Dialect, p *Plan, n int64) ([]string, int64) {
	s := NewStream(p, StreamConfig{Start: epoch, Count: n})
	ins := map[int]*stmt{}
	order := []int{-1}
	mk := func(t *Table) *stmt { return insertStmt(d, t) }
	ins[-1] = mk(p.Table)
	for k, f := range p.Follows {
		ins[k] = mk(f.Table)
		order = append(order, k)
	}
	var out []string
	var rows int64
	flush := func(st *stmt) {
		if st.rows > 0 {
			out = append(out, st.sql(false))
			st.reset()
		}
	}
	for {
		ev, ok := s.Next()
		if !ok {
			break
		}
		e := ev.ctx()
		fields := p.fields
		if ev.Follow >= 0 {
			fields = p.Follows[ev.Follow].fields
		}
		st := ins[ev.Follow]
		appendRow(st, s, fields, &e)
		rows++
		if st.rows == 1000 {
			flush(st)
		}
	}
	for _, k := range order {
		flush(ins[k])
	}
	return out, rows
}
