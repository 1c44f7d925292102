package generator

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Stats counts what a run has written, for progress lines. Counters move
// only when a batch is committed. It is safe for concurrent use.
type Stats struct {
	plans    []*Plan
	base     []int   // per plan: index of its parent counter
	follow   [][]int // per plan, per follow-up: index of its first outcome counter
	counters []atomic.Int64
	pending  atomic.Int64
	clock    atomic.Int64 // time of the latest written event, Unix ns
	logical  atomic.Bool
	downNs   atomic.Int64 // when MySQL went away (0 when up)
	retries  atomic.Int64
}

// NewStats prepares counters for the plans.
func NewStats(plans []*Plan) *Stats {
	s := &Stats{plans: plans}
	n := 0
	for _, p := range plans {
		s.base = append(s.base, n)
		n++
		var fo []int
		for _, f := range p.Follows {
			fo = append(fo, n)
			n += len(f.Outcomes)
		}
		s.follow = append(s.follow, fo)
	}
	s.counters = make([]atomic.Int64, n)
	return s
}

func (s *Stats) counter(plan int, ev *Event) int {
	if ev.Follow < 0 {
		return s.base[plan]
	}
	return s.follow[plan][ev.Follow] + ev.Outcome
}

func (s *Stats) add(counts []int64) {
	for i, c := range counts {
		if c != 0 {
			s.counters[i].Add(c)
		}
	}
}

// Snapshot is the state of a run at one moment.
type Snapshot struct {
	Producers []ProducerCounts
	// Pending is the number of follow-ups waiting for their time.
	Pending int64
	// Clock is the time of the latest event written (logical or wall).
	Clock   time.Time
	Logical bool
	// DownSince is when the database stopped accepting writes; zero while
	// it accepts them.
	DownSince time.Time
	Retries   int64
}

// ProducerCounts are one producer's written rows.
type ProducerCounts struct {
	Name, Table string
	Rows        int64
	Follows     []FollowCounts
}

// FollowCounts are one follow-up's written rows by outcome.
type FollowCounts struct {
	Name, Table string
	Outcomes    []string // outcomes that produce rows, sorted
	Counts      []int64
}

// Rows is the follow-up rows written, all outcomes together.
func (f FollowCounts) Rows() int64 {
	var n int64
	for _, c := range f.Counts {
		n += c
	}
	return n
}

// Rows is every row inserted: parents and follow-ups.
func (s Snapshot) Rows() int64 {
	var n int64
	for _, p := range s.Producers {
		n += p.Rows
		for _, f := range p.Follows {
			n += f.Rows()
		}
	}
	return n
}

// Parents is the parent rows written by all producers.
func (s Snapshot) Parents() int64 {
	var n int64
	for _, p := range s.Producers {
		n += p.Rows
	}
	return n
}

// Snapshot reads the counters.
func (s *Stats) Snapshot() Snapshot {
	out := Snapshot{Pending: s.pending.Load(), Logical: s.logical.Load(), Retries: s.retries.Load()}
	if c := s.clock.Load(); c != 0 {
		out.Clock = time.Unix(0, c).UTC()
	}
	if d := s.downNs.Load(); d != 0 {
		out.DownSince = time.Unix(0, d)
	}
	for pi, p := range s.plans {
		pc := ProducerCounts{Name: p.Name, Table: p.Table.Name, Rows: s.counters[s.base[pi]].Load()}
		for k, f := range p.Follows {
			fc := FollowCounts{Name: f.Name, Table: f.Table.Name}
			for o, name := range f.Outcomes {
				if o == f.Never {
					continue
				}
				fc.Outcomes = append(fc.Outcomes, name)
				fc.Counts = append(fc.Counts, s.counters[s.follow[pi][k]+o].Load())
			}
			pc.Follows = append(pc.Follows, fc)
		}
		out.Producers = append(out.Producers, pc)
	}
	return out
}

// Line is the snapshot as one progress line, e.g.
//
//	orders 1,234 · payments 1,170 (FAILED 180, PAID 990) · pending 61 · 5.0 orders/s
//
// rate is parents per second, negative if unknown.
func (s Snapshot) Line(rate float64) string {
	var parts []string
	for _, p := range s.Producers {
		parts = append(parts, p.Table+" "+thousands(p.Rows))
		for _, f := range p.Follows {
			var oc []string
			for i, o := range f.Outcomes {
				oc = append(oc, o+" "+thousands(f.Counts[i]))
			}
			part := f.Table + " " + thousands(f.Rows())
			if len(oc) > 1 {
				part += " (" + strings.Join(oc, ", ") + ")"
			}
			parts = append(parts, part)
		}
	}
	parts = append(parts, "pending "+thousands(s.Pending))
	if rate >= 0 {
		var tables []string
		for _, p := range s.Producers {
			tables = append(tables, p.Table)
		}
		unit := strings.Join(tables, "+") + "/s"
		parts = append(parts, formatRate(rate)+" "+unit)
	}
	if s.Logical && !s.Clock.IsZero() {
		parts = append(parts, "clock "+s.Clock.Format("2006-01-02 15:04:05")+" (logical)")
	}
	if !s.DownSince.IsZero() {
		parts = append(parts, fmt.Sprintf("MySQL unreachable for %s, retrying", time.Since(s.DownSince).Round(time.Second)))
	}
	return strings.Join(parts, " · ")
}

func formatRate(r float64) string {
	switch {
	case r >= 1000:
		return thousands(int64(r + 0.5))
	case r >= 10:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// thousands writes n with comma separators: 1234567 → 1,234,567.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
