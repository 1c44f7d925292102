package generator

import (
	"math"
	"time"
)

// Event is one generated event: a parent row (Follow < 0), or a follow-up
// of parent Index (Follow is the index into Plan.Follows).
type Event struct {
	Follow int
	// Index is the parent event's number, counted from 0.
	Index int64
	// Seq is the row's number among its table's rows, counted from 0: the
	// parent's Index, or the follow-up's rank among the follow-ups that
	// happen (outcomes other than never).
	Seq int64
	// Time is the event's time (Unix ns): the parent's scheduled time, or
	// the parent's time plus the follow-up's delay.
	Time       int64
	ParentTime int64
	Outcome    int
}

func (e *Event) ctx() ectx {
	return ectx{index: e.Index, seq: e.Seq, time: e.Time, parentTime: e.ParentTime, outcome: e.Outcome}
}

// StreamConfig places a producer's events in time.
type StreamConfig struct {
	// Start is the time of the first parent event.
	Start time.Time
	// Rate is parents per second on the schedule; 0 takes the plan's rate.
	Rate float64
	// First is the number of the first parent event, for a run that
	// resumes after rows an earlier run wrote.
	First int64
	// Count is how many parent events to produce; 0 means no end.
	Count int64
}

// Stream is the deterministic sequence of one producer's events in time
// order. Parent i happens at Start + (i-First)/Rate; each follow-up at its
// parent's time plus its delay. Which follow-ups happen, when, and every
// value of every row depend only on the seed, the plan and the event
// numbers, never on when or how the events are consumed.
type Stream struct {
	plan         *Plan
	g            *rng
	start        int64
	nsPer        float64
	first, next  int64
	end          int64 // first parent number not produced; -1 for no end
	q            pendingQueue
	seq          []int64 // next Seq per follow-up
	parentsEnded bool
}

// NewStream starts the plan's events.
func NewStream(p *Plan, cfg StreamConfig) *Stream {
	rate := cfg.Rate
	if rate <= 0 {
		rate = p.Rate
	}
	s := &Stream{
		plan:  p,
		g:     newRNG(),
		start: cfg.Start.UnixNano(),
		nsPer: 1e9 / rate,
		first: cfg.First,
		next:  cfg.First,
		end:   -1,
		seq:   make([]int64, len(p.Follows)),
	}
	if cfg.Count > 0 {
		s.end = cfg.First + cfg.Count
	}
	if cfg.First > 0 {
		for k, f := range p.Follows {
			s.seq[k] = f.countBefore(s.g, cfg.First)
		}
	}
	return s
}

// countBefore counts the follow-ups that happen for parents [0, n).
func (f *FollowPlan) countBefore(g *rng, n int64) int64 {
	if f.Never < 0 {
		return n
	}
	var c int64
	for i := int64(0); i < n; i++ {
		if f.outcome.index(g.at(f.outcomeKey, i)) != f.Never {
			c++
		}
	}
	return c
}

// Plan is the stream's plan.
func (s *Stream) Plan() *Plan { return s.plan }

// parentTime is the scheduled time of parent i.
func (s *Stream) parentTime(i int64) int64 {
	return s.start + int64(math.Round(float64(i-s.first)*s.nsPer))
}

func (s *Stream) moreParents() bool {
	return !s.parentsEnded && (s.end < 0 || s.next < s.end)
}

// NextTime is the time of the next event; false when the stream is over.
func (s *Stream) NextTime() (int64, bool) {
	if s.moreParents() {
		t := s.parentTime(s.next)
		if s.q.Len() > 0 && s.q.top().due < t {
			return s.q.top().due, true
		}
		return t, true
	}
	if s.q.Len() > 0 {
		return s.q.top().due, true
	}
	return 0, false
}

// Next returns the next event; false when the stream is over. A parent
// comes before a follow-up due at the same instant.
func (s *Stream) Next() (Event, bool) {
	if s.moreParents() {
		t := s.parentTime(s.next)
		if s.q.Len() == 0 || s.q.top().due >= t {
			i := s.next
			s.next++
			s.schedule(i, t)
			return Event{Follow: -1, Index: i, Seq: i, Time: t, ParentTime: t}, true
		}
	}
	if s.q.Len() == 0 {
		return Event{}, false
	}
	p := s.q.pop()
	return Event{Follow: int(p.follow), Index: p.index, Seq: p.seq, Time: p.due, ParentTime: p.parentTime, Outcome: int(p.outcome)}, true
}

// schedule queues the follow-ups of parent i, which happened at t.
func (s *Stream) schedule(i, t int64) {
	for k, f := range s.plan.Follows {
		o := f.outcome.index(s.g.at(f.outcomeKey, i))
		if o == f.Never {
			continue
		}
		s.q.push(pending{due: t + f.delayNs(s.g, i, o), parentTime: t, index: i, seq: s.seq[k], follow: uint16(k), outcome: uint16(o)})
		s.seq[k]++
	}
}

// delayNs draws the delay of the follow-up of parent i, whose outcome is
// o, in nanoseconds.
func (f *FollowPlan) delayNs(g *rng, i int64, o int) int64 {
	n := f.delay
	if f.delays != nil {
		n = f.delays[o]
	}
	d := n.sample(g.at(f.delayKey, i))
	if !(d > 0) { // negative, zero or NaN
		return 0
	}
	if d > 1e9 { // over 31 years: keep the arithmetic in range
		d = 1e9
	}
	return int64(math.Round(d * 1e9))
}

// EndParents stops the parent events; pending follow-ups still come out.
func (s *Stream) EndParents() { s.parentsEnded = true }

// ParentsDone tells whether every parent event has come out.
func (s *Stream) ParentsDone() bool { return !s.moreParents() }

// NextIndex is the number of the next parent event.
func (s *Stream) NextIndex() int64 { return s.next }

// Pending is the number of follow-ups waiting for their time.
func (s *Stream) Pending() int { return s.q.Len() }

// LastDue is the due time of the latest pending follow-up (0 if none).
func (s *Stream) LastDue() int64 { return s.q.lastDue() }

// merged interleaves several producers' streams in time order; ties go to
// the stream listed first.
type merged []*Stream

func (m merged) nextStream() (*Stream, int64, bool) {
	var best *Stream
	var bt int64
	for _, s := range m {
		if t, ok := s.NextTime(); ok && (best == nil || t < bt) {
			best, bt = s, t
		}
	}
	return best, bt, best != nil
}

func (m merged) pending() int {
	n := 0
	for _, s := range m {
		n += s.Pending()
	}
	return n
}
