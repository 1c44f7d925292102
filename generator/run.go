package generator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Sink is where a run writes. MySQL and Postgres are the real ones (a
// sink with a Dialect method has its statements written in that dialect,
// others MySQL's); tests use others.
type Sink interface {
	// NextIndex is the number of the first parent event of the plan not
	// yet written (0 for an empty table), so a run resumes after the rows
	// an earlier run wrote.
	NextIndex(ctx context.Context, p *Plan) (int64, error)
	// Write runs the statements in one transaction. An error the run
	// should retry (the database went away) is wrapped with Transient; a
	// duplicate key is reported as ErrDuplicateKey, and the run sends the
	// batch again in its idempotent form.
	Write(ctx context.Context, stmts []string) error
}

// ErrDuplicateKey is what a sink's error wraps when a plain INSERT met a
// row that is already there.
var ErrDuplicateKey = errors.New("duplicate key")

// TransientError is a failure that goes away by itself: the database
// restarting, a lost connection, a deadlock.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Transient marks err as worth retrying.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{err}
}

// IsTransient tells whether err was marked with Transient.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// Options control a run.
type Options struct {
	// Rate is parents per second for every producer; 0 keeps each
	// producer's declared rate.
	Rate float64
	// Logical runs on the logical clock (--rate max): events are written
	// as fast as the sink takes them, their times advancing as if at the
	// declared rate. A transaction then holds up to logicalTxFactor
	// statements' worth of rows per table, and a follow-up's update of a
	// parent row in the same transaction is applied to the row before it
	// is inserted instead of being sent as an UPDATE (see batch): the
	// tables end up the same, but the binlog shows the row's final state
	// only. A backfill is history, not a live demonstration; on the wall
	// clock each state reaches MySQL when it happens, so that CDC sees the
	// CREATED → PAID transition, and nothing is combined.
	Logical bool
	// Start is the logical time of parent event 0 (Logical only). Zero
	// means: the run's last parent lands at the current time when Count is
	// set (a backfill of the recent past), else the first one does.
	Start time.Time
	// Count is the number of parent events to write (per producer); after
	// the last one the run continues until its follow-ups are written.
	// 0 means no limit.
	Count int64
	// Duration bounds the run (wall time); 0 means no limit.
	Duration time.Duration
	// Resume asks the sink where each producer left off.
	Resume bool
	// BatchRows bounds the rows of one statement (default 1000). On the
	// wall clock it also bounds the rows of one table in a transaction;
	// on the logical clock a transaction takes logicalTxFactor times as
	// many.
	BatchRows int
	// Tick is how long a wall-clock run gathers events before writing
	// them (default 10ms).
	Tick time.Duration
	// FlushTimeout bounds the writing of what is buffered once the run is
	// interrupted (default 15s).
	FlushTimeout time.Duration
	// AttemptTimeout bounds one write attempt (default 60s).
	AttemptTimeout time.Duration
	// MaxBackoff bounds the wait between retries (default 5s).
	MaxBackoff time.Duration
	// Stats receives the counts as batches are written; nil for none.
	Stats *Stats
	// Log receives reports: outages, recovery, waiting for follow-ups.
	Log func(msg string)
	// Now is the wall clock (tests); nil is time.Now.
	Now func() time.Time
}

// Summary is what a run did.
type Summary struct {
	Snapshot
	// Dropped is the follow-ups not written because the run ended first
	// (interrupted, or --duration reached).
	Dropped int
	// Unwritten is events generated but not written because the database
	// stayed unreachable until the flush timeout.
	Unwritten int
	Elapsed   time.Duration
	// Interrupted is set when the run stopped because ctx was cancelled.
	Interrupted bool
	// First is each producer's first parent number (after resuming).
	First []int64
	// Restored is the follow-ups an earlier run left pending that this
	// run took over.
	Restored int
	// Absorbed is the updates written as part of their parent row's
	// INSERT rather than as an UPDATE (the logical clock's
	// write-combining).
	Absorbed int64
}

const (
	defaultBatchRows  = 1000
	maxStatementBytes = 4 << 20
	// logicalTxFactor is how many statements' worth of rows per table a
	// transaction takes on the logical clock. Larger transactions let more
	// updates be combined with their parent's INSERT: for the seed lab (5
	// orders a second, payments 45 s later on average), 1000 orders span
	// 200 s of logical time and 78% of the updates fall in the same
	// transaction as their order; 2500 orders span 500 s, and 91% do
	// (5000: 95.5%). But only rows not yet written can be combined, so the
	// generator runs up to two transactions ahead of what is committed:
	// what an interrupt still writes, and what a retry sends again. 2.5
	// keeps that at 5000 orders, and the throughput at 0.8-1.0 of plain
	// INSERTs (BenchmarkProducerVsInsert).
	logicalTxFactor = 2.5
)

// Run writes the plans' events to sink until Count, Duration or ctx ends
// it. Cancelling ctx is a normal end: what is buffered is written (within
// FlushTimeout) and Run returns the summary without error. Errors are
// failures the run cannot retry: a missing table, a rejected value.
func Run(ctx context.Context, plans []*Plan, sink Sink, opts Options) (*Summary, error) {
	o := opts
	if o.BatchRows <= 0 {
		o.BatchRows = defaultBatchRows
	}
	if o.Tick <= 0 {
		o.Tick = 10 * time.Millisecond
	}
	if o.FlushTimeout <= 0 {
		o.FlushTimeout = 15 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 60 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	if o.Stats == nil {
		o.Stats = NewStats(plans)
	}
	if len(plans) == 0 {
		return nil, errors.New("the lab has no producer")
	}
	o.Stats.logical.Store(o.Logical)
	began := o.Now()

	streams := make([]*Stream, len(plans))
	sum := &Summary{}
	for i, p := range plans {
		first := int64(0)
		if o.Resume {
			n, err := sink.NextIndex(ctx, p)
			if err != nil {
				return nil, err
			}
			first = n
			if n > 0 {
				o.Log(fmt.Sprintf("%s: resuming after the %s rows already in %s", p.Name, thousands(n), p.Table.Name))
			}
		}
		rate := o.Rate
		if rate <= 0 {
			rate = p.Rate
		}
		start := began
		if o.Logical {
			switch {
			case !o.Start.IsZero():
				start = o.Start.Add(nanos(float64(first) / rate))
			case o.Count > 0:
				start = began.Add(-nanos(float64(o.Count-1) / rate))
			}
			// A resumed run without --start continues after the rows
			// already written, so that times keep increasing with the
			// order numbers.
			if rs, ok := sink.(restorer); ok && first > 0 && o.Start.IsZero() {
				last, ok, err := rs.lastParentTime(ctx, p, first)
				if err != nil {
					return nil, err
				}
				if after := time.Unix(0, last).Add(nanos(1 / rate)); ok && after.After(start) {
					start = after
				}
			}
		}
		st := NewStream(p, StreamConfig{Start: start, Rate: rate, First: first, Count: o.Count})
		if rs, ok := sink.(restorer); ok && first > 0 {
			found, why, err := rs.unwritten(ctx, st)
			if err != nil {
				return nil, err
			}
			if why != "" {
				o.Log(fmt.Sprintf("%s: follow-ups an earlier run left pending are not taken over: %s", p.Name, why))
			}
			if len(found) > 0 {
				st.restore(found)
				o.Log(fmt.Sprintf("%s: took over %s follow-ups an earlier run left pending", p.Name, thousands(int64(len(found)))))
			}
			sum.Restored += len(found)
		}
		streams[i] = st
		sum.First = append(sum.First, first)
	}

	r := &runner{opts: o, streams: streams, sink: sink, stats: o.Stats}
	err := r.run(ctx)
	sum.Snapshot = o.Stats.Snapshot()
	sum.Dropped = merged(streams).pending()
	sum.Unwritten = r.unwritten
	sum.Elapsed = o.Now().Sub(began)
	sum.Interrupted = ctx.Err() != nil
	sum.Pending = int64(sum.Dropped)
	sum.Absorbed = r.absorbed
	return sum, err
}

func nanos(sec float64) time.Duration {
	if sec > math.MaxInt64/1e9 {
		return math.MaxInt64
	}
	return time.Duration(sec * 1e9)
}

type runner struct {
	opts      Options
	streams   []*Stream
	sink      Sink
	stats     *Stats
	unwritten int
	absorbed  int64 // updates combined with their parent's INSERT, written
}

func (r *runner) run(ctx context.Context) error {
	o := r.opts
	limits := batchLimits{rows: o.BatchRows, bytes: maxStatementBytes, txRows: o.BatchRows, txBytes: maxStatementBytes}
	if o.Logical {
		limits.txRows = max(1, int(float64(o.BatchRows)*logicalTxFactor))
		limits.txBytes = int(float64(maxStatementBytes) * logicalTxFactor)
		limits.absorb = true
	}
	ncounts := len(r.stats.counters)
	// Three batches rotate: one being filled, one being written, one
	// ready, so generating overlaps with the database's work. On the
	// logical clock, where batches are large and generating one takes a
	// fraction of the time writing it does, two suffice (one written, one
	// filled); a third would only let the generator run further ahead of
	// what is committed, all of which an interrupt must still write.
	nbatch := 3
	if o.Logical {
		nbatch = 2
	}
	free := make(chan *batch, nbatch)
	for range nbatch {
		free <- newBatch(dialectOf(r.sink), r.streams, limits, ncounts)
	}
	work := make(chan *batch, 2)

	// The writer keeps going after ctx is cancelled, to flush; wctx ends
	// FlushTimeout after that, or when the generator fails.
	wctx, wcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer wcancel()
	stopFlush := context.AfterFunc(ctx, func() {
		t := time.NewTimer(o.FlushTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			wcancel()
		case <-wctx.Done():
		}
	})
	defer stopFlush()

	writerDone := make(chan struct{})
	failed := make(chan struct{}) // closed when the writer gives up
	var writeErr error
	go func() {
		defer close(writerDone)
		for b := range work {
			if writeErr == nil {
				if err := r.write(wctx, b); err != nil {
					writeErr = err
					close(failed)
				}
			}
			if writeErr != nil {
				r.unwritten += b.events
			}
			b.reset()
			free <- b
		}
	}()

	genErr := r.generate(ctx, free, work, failed)
	close(work)
	<-writerDone
	if writeErr != nil {
		if ctx.Err() != nil && errors.Is(writeErr, context.Canceled) {
			// The flush timed out with the database still away.
			r.opts.Log(fmt.Sprintf("gave up writing after the interrupt: %d events were not written", r.unwritten))
			return nil
		}
		return writeErr
	}
	return genErr
}

// generate produces events into batches until the run ends.
func (r *runner) generate(ctx context.Context, free, work chan *batch, failed chan struct{}) error {
	o := r.opts
	m := merged(r.streams)
	var deadline int64 = math.MaxInt64
	if o.Duration > 0 {
		deadline = o.Now().Add(o.Duration).UnixNano()
	}
	var cur *batch
	send := func() bool {
		if cur == nil || cur.events == 0 {
			return true
		}
		r.stats.pending.Store(int64(m.pending()))
		cur.finish()
		select {
		case work <- cur:
			cur = nil
			return true
		case <-failed:
			return false
		}
	}
	take := func() bool {
		if cur != nil {
			return true
		}
		select {
		case cur = <-free:
			return true
		case <-failed:
			return false
		}
	}
	defer func() {
		if cur != nil && cur.events > 0 {
			send()
		}
	}()
	announced := false
	n := 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		s, t, ok := m.nextStream()
		if !ok {
			return nil
		}
		if !o.Logical && t > deadline {
			return nil
		}
		if o.Logical && n&255 == 0 && o.Now().UnixNano() > deadline {
			return nil
		}
		n++
		if !announced && o.Count > 0 && allParentsDone(r.streams) {
			announced = true
			if p := m.pending(); p > 0 && !o.Logical {
				last := time.Unix(0, lastDue(r.streams))
				o.Log(fmt.Sprintf("all %s %s generated; waiting for %s pending %s, the last due at %s (in %s); interrupt to stop",
					thousands(o.Count*int64(len(r.streams))), tableNames(r.streams, false), thousands(int64(p)), tableNames(r.streams, true),
					last.Format("15:04:05"), last.Sub(o.Now()).Round(time.Second)))
			}
		}
		if !o.Logical {
			if wait := time.Duration(t - o.Now().UnixNano()); wait > 0 {
				// Nothing is due: write what is gathered, then sleep until
				// the next event (at least one tick, to gather several).
				if !send() {
					return nil
				}
				if wait < o.Tick {
					wait = o.Tick
				}
				if !sleep(ctx, wait, failed) {
					return nil
				}
				continue
			}
		}
		if !take() {
			return nil
		}
		si := streamIndex(r.streams, s)
		// An event that does not fit the batch starts the next one.
		ev, _ := s.Next()
		if !cur.fits(si, &ev) {
			if !send() || !take() {
				return nil
			}
		}
		cur.add(s, si, &ev, r.stats.counter(si, &ev))
		if cur.full && !send() {
			return nil
		}
	}
}

// tableNames names the parent tables, or the follow-up tables, of the
// streams: "orders", "payments".
func tableNames(ss []*Stream, follows bool) string {
	var names []string
	seen := map[string]bool{}
	for _, s := range ss {
		add := func(n string) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		if !follows {
			add(s.plan.Table.Name)
			continue
		}
		for _, f := range s.plan.Follows {
			add(f.Table.Name)
		}
	}
	return strings.Join(names, " and ")
}

func streamIndex(ss []*Stream, s *Stream) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func allParentsDone(ss []*Stream) bool {
	for _, s := range ss {
		if !s.ParentsDone() {
			return false
		}
	}
	return true
}

func lastDue(ss []*Stream) int64 {
	var m int64
	for _, s := range ss {
		m = max(m, s.LastDue())
	}
	return m
}

// sleep waits d; false if ctx ended or the writer failed.
func sleep(ctx context.Context, d time.Duration, failed chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-failed:
		return false
	}
}

// write writes one batch, retrying transient failures with backoff for as
// long as ctx allows.
func (r *runner) write(ctx context.Context, b *batch) error {
	o := r.opts
	server := dialectOf(r.sink).Server
	stmts := b.statements(false)
	backoff := 250 * time.Millisecond
	var down time.Time
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, o.AttemptTimeout)
		err := r.sink.Write(actx, stmts)
		cancel()
		if errors.Is(err, ErrRejected) && ctx.Err() == nil {
			// Find the row, keep those before it, stop.
			err = r.isolateRejected(ctx, b, err)
		}
		if err != nil && attempt == 1 {
			// Whatever happened, the first attempt may have committed:
			// from now on, only idempotent statements.
			stmts = b.statements(true)
			if errors.Is(err, ErrDuplicateKey) {
				continue
			}
		}
		if err == nil {
			if !down.IsZero() {
				r.stats.downNs.Store(0)
				o.Log(fmt.Sprintf("%s is back after %s; resuming (nothing lost: the batch was retried, follow-ups kept)", server, o.Now().Sub(down).Round(100*time.Millisecond)))
			}
			r.stats.add(b.counts)
			r.stats.clock.Store(b.lastT)
			r.absorbed += b.absorbed
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !IsTransient(err) {
			return err
		}
		r.stats.retries.Add(1)
		if down.IsZero() {
			down = o.Now()
			r.stats.downNs.Store(down.UnixNano())
			o.Log(fmt.Sprintf("%s write failed: %v; retrying with backoff", server, err))
		} else if attempt%20 == 0 {
			o.Log(fmt.Sprintf("%s still unreachable after %s: %v; retrying", server, o.Now().Sub(down).Round(time.Second), err))
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		backoff = min(2*backoff, o.MaxBackoff)
	}
}
