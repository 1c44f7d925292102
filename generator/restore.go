package generator

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/labgen/labgen/schemas"
)

// A run that resumes after rows an earlier run wrote also takes over the
// follow-ups that run left pending (it was stopped, or crashed, before
// they fell due): the parents recent enough to still have a follow-up
// coming are read back with their times, each one's follow-ups are
// recomputed (outcome, delay, number: all functions of the parent's
// number), and those whose rows are not in the follow-up table are queued
// again, due at their original time.

// restorer is a sink that can find the follow-ups an earlier run left.
type restorer interface {
	unwritten(ctx context.Context, s *Stream) (found []pending, why string, err error)
	// lastParentTime is the time of parent next-1, if it can be read.
	lastParentTime(ctx context.Context, p *Plan, next int64) (int64, bool, error)
}

// lastParentTime implements restorer.
func (m *sqlSink) lastParentTime(ctx context.Context, p *Plan, next int64) (int64, bool, error) {
	if next == 0 || p.seqKey == nil || p.timeField == nil {
		return 0, false, nil
	}
	var at sql.NullString
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %d", m.d.quoteID(p.timeField.col.name), m.d.quoteID(p.Table.SQLName),
		m.d.quoteID(p.Table.Key[0]), p.seqKey.Start+(next-1)*p.seqKey.Step)
	err := m.db.QueryRowContext(ctx, q).Scan(&at)
	if err == sql.ErrNoRows || err == nil && !at.Valid {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, m.explain(err, p.Table.SQLName)
	}
	t, err := parseSQLTime(at.String)
	if err != nil {
		return 0, false, nil
	}
	return t, true, nil
}

// horizon is the longest delay the follow-up can draw, in seconds: its
// clamp, or a bound it exceeds with probability below one in a million.
func (f *FollowPlan) horizon() float64 {
	if f.delays != nil {
		h := 0.0
		for _, n := range f.delays {
			if n != nil {
				h = math.Max(h, horizonOf(n))
			}
		}
		return h
	}
	return horizonOf(f.delay)
}

func horizonOf(n *numeric) float64 {
	if !math.IsInf(n.hi, 1) {
		return math.Max(n.hi, 0)
	}
	switch n.kind {
	case schemas.DistUniform, schemas.DistUniformInt:
		return n.b
	case schemas.DistNormal:
		return n.a + 5*n.b
	case schemas.DistLogNormal:
		return math.Exp(n.a + 5*n.b)
	case schemas.DistExponential:
		return 14 * n.a // e^-14 < 1e-6
	}
	return n.a
}

// restore queues follow-ups found by a restorer.
func (s *Stream) restore(ps []pending) {
	for _, p := range ps {
		s.q.push(p)
	}
}

// unwritten implements restorer.
func (m *sqlSink) unwritten(ctx context.Context, s *Stream) ([]pending, string, error) {
	p := s.plan
	next := s.first
	if next == 0 || len(p.Follows) == 0 {
		return nil, "", nil
	}
	if p.seqKey == nil {
		return nil, "its key is not a sequence()", nil
	}
	if p.timeField == nil {
		return nil, fmt.Sprintf("%s has no now() field to tell when its rows happened", p.Table.Name), nil
	}
	var horizon float64
	for _, f := range p.Follows {
		horizon = math.Max(horizon, f.horizon())
	}
	hz := int64(math.Min(horizon, 1e9) * 1e9)

	// Read the parents back, newest first, in key ranges, until they are
	// older than the longest delay before the newest.
	start, step := p.seqKey.Start, p.seqKey.Step
	times := map[int64]int64{} // parent number → time
	var newest int64
	lowest := next
	const chunk = 5000
	for hi := next; hi > 0; hi -= chunk {
		lo := max(hi-chunk, 0)
		q := fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s BETWEEN %d AND %d",
			m.d.quoteID(p.Table.Key[0]), m.d.quoteID(p.timeField.col.name), m.d.quoteID(p.Table.SQLName),
			m.d.quoteID(p.Table.Key[0]), start+lo*step, start+(hi-1)*step)
		rows, err := m.db.QueryContext(ctx, q)
		if err != nil {
			return nil, "", m.explain(err, p.Table.SQLName)
		}
		oldest := int64(math.MaxInt64)
		for rows.Next() {
			var key int64
			var at sql.NullString
			if err := rows.Scan(&key, &at); err != nil {
				rows.Close()
				return nil, "", err
			}
			if (key-start)%step != 0 || !at.Valid {
				continue
			}
			t, err := parseSQLTime(at.String)
			if err != nil {
				rows.Close()
				return nil, "", fmt.Errorf("reading %s.%s back: %v", p.Table.SQLName, p.timeField.col.name, err)
			}
			i := (key - start) / step
			times[i] = t
			newest = max(newest, t)
			oldest = min(oldest, t)
		}
		if err := rows.Close(); err != nil {
			return nil, "", m.explain(err, p.Table.SQLName)
		}
		lowest = lo
		if oldest < newest-hz {
			break
		}
	}

	var found []pending
	for k, f := range p.Follows {
		if f.keyField == nil {
			continue // no single-column key to look the rows up by
		}
		seq := f.countBefore(s.g, lowest)
		var cands []pending
		for i := lowest; i < next; i++ {
			o := f.outcome.index(s.g.at(f.outcomeKey, i))
			if o == f.Never {
				continue
			}
			seq++
			pt, ok := times[i]
			if !ok {
				continue // the parent row is gone
			}
			due := pt + f.delayNs(s.g, i, o)
			if due+hz < newest { // certainly written or given up long ago
				continue
			}
			cands = append(cands, pending{due: due, parentTime: pt, index: i, seq: seq - 1, follow: uint16(k), outcome: uint16(o)})
		}
		missing, err := m.missingKeys(ctx, s, f, cands)
		if err != nil {
			return nil, "", err
		}
		found = append(found, missing...)
	}
	return found, "", nil
}

// missingKeys returns the candidates whose follow-up row is not in the
// follow-up table.
func (m *sqlSink) missingKeys(ctx context.Context, s *Stream, f *FollowPlan, cands []pending) ([]pending, error) {
	var out []pending
	for len(cands) > 0 {
		n := min(len(cands), 1000)
		part := cands[:n]
		cands = cands[n:]
		keys := make([]string, len(part))
		var q []byte
		q = append(q, "SELECT "+m.d.quoteID(f.keyField.col.name)+" FROM "+m.d.quoteID(f.Table.SQLName)+" WHERE "+m.d.quoteID(f.keyField.col.name)+" IN ("...)
		for j, c := range part {
			ev := Event{Follow: int(c.follow), Index: c.index, Seq: c.seq, Time: c.due, ParentTime: c.parentTime, Outcome: int(c.outcome)}
			e := ev.ctx()
			v := f.keyField.fn(s.g, &e)
			keys[j] = plainText(&f.keyField.col, v)
			if j > 0 {
				q = append(q, ',')
			}
			q = m.d.appendValue(q, &f.keyField.col, v)
		}
		q = append(q, ')')
		rows, err := m.db.QueryContext(ctx, string(q))
		if err != nil {
			return nil, m.explain(err, f.Table.SQLName)
		}
		have := map[string]bool{}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, err
			}
			have[k] = true
		}
		if err := rows.Close(); err != nil {
			return nil, m.explain(err, f.Table.SQLName)
		}
		for j, c := range part {
			if !have[keys[j]] {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// plainText is a value as MySQL returns it as text.
func plainText(c *column, v Value) string {
	switch v.k {
	case kInt:
		return strconv.FormatInt(v.i, 10)
	case kString:
		return v.s
	case kTime:
		return string(appendTime(nil, v.i, c.typ))
	}
	s := string(appendSQL(nil, c, v))
	return strings.Trim(s, "'")
}

// parseSQLTime reads a DATETIME or DATE as MySQL prints it, in UTC, or a
// time as database/sql writes a time.Time into a string (RFC 3339: what
// pgx returns for PostgreSQL's TIMESTAMP).
func parseSQLTime(s string) (int64, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02", time.RFC3339Nano} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UnixNano(), nil
		}
	}
	return 0, fmt.Errorf("%q is not a time", s)
}
