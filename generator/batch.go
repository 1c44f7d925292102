package generator

import "strings"

// batch is a group of events written together, in one transaction, as
// multi-row statements: the parents' INSERTs, then the follow-ups'
// INSERTs, then the follow-ups' updates of their parents.
//
// A batch is first sent with plain INSERTs, the cheapest for the server.
// If that attempt fails, every later attempt uses the idempotent form
// (INSERT … ON DUPLICATE KEY UPDATE with a no-op; the UPDATEs set fixed
// values anyway), so a batch whose commit went unacknowledged can be sent
// again without duplicating or changing anything.
type batch struct {
	per    []batchStream
	order  []*stmt // every statement, in execution order
	events int
	counts []int64 // Stats counters to add once written
	lastT  int64   // time of the latest event
	full   bool
	limits batchLimits
}

type batchLimits struct {
	rows  int // rows per statement
	bytes int // bytes per statement
}

// batchStream holds one stream's statements.
type batchStream struct {
	parent  *stmt
	follows []*stmt
	updates []*stmt // nil entries for follow-ups without update
	// updated holds the parents updated in this batch when two follow-ups
	// may update the same row: a second update of a row ends the batch, so
	// that updates land in time order.
	updated map[int64]struct{}
}

// stmt is one multi-row statement being built.
type stmt struct {
	head string // INSERT … VALUES  /  UPDATE … JOIN (
	tail string // "" / ) AS u ON … SET …
	// idem replaces tail in the idempotent form: ON DUPLICATE KEY …
	idem string
	buf  []byte // head + rows so far
	rows int
}

func (s *stmt) reset() {
	s.buf = append(s.buf[:0], s.head...)
	s.rows = 0
}

// sql is the finished statement, in its idempotent form or not.
func (s *stmt) sql(idempotent bool) string {
	if idempotent {
		return string(s.buf) + s.idem
	}
	return string(s.buf) + s.tail
}

func quoteID(id string) string { return "`" + strings.ReplaceAll(id, "`", "``") + "`" }

func insertStmt(t *Table) *stmt {
	var h strings.Builder
	h.WriteString("INSERT INTO ")
	h.WriteString(quoteID(t.SQLName))
	h.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			h.WriteByte(',')
		}
		h.WriteString(quoteID(c))
	}
	h.WriteString(") VALUES ")
	// A no-op on a duplicate key makes the INSERT idempotent without
	// INSERT IGNORE, which would also turn data errors into warnings.
	k := quoteID(t.Columns[0])
	if len(t.Key) > 0 {
		k = quoteID(t.Key[0])
	}
	s := &stmt{head: h.String(), idem: " ON DUPLICATE KEY UPDATE " + k + "=" + k}
	s.reset()
	return s
}

// updateStmt builds UPDATE parent AS t JOIN (SELECT … UNION ALL SELECT …)
// AS u ON t.key = u.k0 SET t.col = u.v0, …: one statement for many rows,
// portable between MySQL and MariaDB.
func updateStmt(parent *Table, cols []string) *stmt {
	var tail strings.Builder
	tail.WriteString(") AS u ON ")
	for i, k := range parent.Key {
		if i > 0 {
			tail.WriteString(" AND ")
		}
		tail.WriteString("t." + quoteID(k) + "=u.`k" + itoa(i) + "`")
	}
	tail.WriteString(" SET ")
	for i, c := range cols {
		if i > 0 {
			tail.WriteByte(',')
		}
		tail.WriteString("t." + quoteID(c) + "=u.`v" + itoa(i) + "`")
	}
	s := &stmt{head: "UPDATE " + quoteID(parent.SQLName) + " AS t JOIN (", tail: tail.String(), idem: tail.String()}
	s.reset()
	return s
}

func itoa(i int) string { return string(appendInt(nil, i, 1)) }

func newBatch(streams []*Stream, limits batchLimits, ncounts int) *batch {
	b := &batch{per: make([]batchStream, len(streams)), counts: make([]int64, ncounts), limits: limits}
	// Parents first, then follow-ups, then updates: a follow-up row or an
	// update never precedes the parent row it refers to.
	for i, s := range streams {
		p := s.plan
		bs := &b.per[i]
		bs.parent = insertStmt(p.Table)
		b.order = append(b.order, bs.parent)
		nupd := 0
		for _, f := range p.Follows {
			bs.follows = append(bs.follows, insertStmt(f.Table))
			var u *stmt
			if f.update != nil {
				u = updateStmt(p.Table, f.updateCols)
				nupd++
			}
			bs.updates = append(bs.updates, u)
		}
		if nupd > 1 {
			bs.updated = map[int64]struct{}{}
		}
	}
	for i := range b.per {
		b.order = append(b.order, b.per[i].follows...)
	}
	for i := range b.per {
		for _, u := range b.per[i].updates {
			if u != nil {
				b.order = append(b.order, u)
			}
		}
	}
	return b
}

func (b *batch) reset() {
	for _, s := range b.order {
		s.reset()
	}
	for i := range b.per {
		clear(b.per[i].updated)
	}
	clear(b.counts)
	b.events, b.lastT, b.full = 0, 0, false
}

// fits tells whether the event can join the batch; false means the batch
// must be written first.
func (b *batch) fits(si int, ev *Event) bool {
	if b.full {
		return false
	}
	bs := &b.per[si]
	if ev.Follow >= 0 && bs.updated != nil && bs.updates[ev.Follow] != nil {
		if _, dup := bs.updated[ev.Index]; dup {
			return false
		}
	}
	return true
}

// add appends the event's rows; the caller checked fits. counter is the
// Stats counter the event adds one to.
func (b *batch) add(s *Stream, si int, ev *Event, counter int) {
	bs := &b.per[si]
	p := s.plan
	e := ev.ctx()
	if ev.Follow < 0 {
		b.check(appendRow(bs.parent, s, p.fields, &e))
	} else {
		f := p.Follows[ev.Follow]
		b.check(appendRow(bs.follows[ev.Follow], s, f.fields, &e))
		if u := bs.updates[ev.Follow]; u != nil {
			pe := ectx{index: ev.Index, seq: ev.Index, time: ev.ParentTime, parentTime: ev.ParentTime}
			b.check(appendUpdate(u, s, p.keyVals, &pe, f.update, &e))
			if bs.updated != nil {
				bs.updated[ev.Index] = struct{}{}
			}
		}
	}
	b.counts[counter]++
	b.events++
	if ev.Time > b.lastT {
		b.lastT = ev.Time
	}
}

func (b *batch) check(s *stmt) {
	if s.rows >= b.limits.rows || len(s.buf) >= b.limits.bytes {
		b.full = true
	}
}

func appendRow(st *stmt, s *Stream, fields []*field, e *ectx) *stmt {
	buf := st.buf
	if st.rows > 0 {
		buf = append(buf, ',')
	}
	buf = append(buf, '(')
	for i, fd := range fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendSQL(buf, &fd.col, fd.fn(s.g, e))
	}
	st.buf = append(buf, ')')
	st.rows++
	return st
}

func appendUpdate(st *stmt, s *Stream, keys []*field, pe *ectx, set []*field, e *ectx) *stmt {
	buf := st.buf
	first := st.rows == 0
	if first {
		buf = append(buf, "SELECT "...)
	} else {
		buf = append(buf, " UNION ALL SELECT "...)
	}
	for i, fd := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendSQL(buf, &fd.col, fd.fn(s.g, pe))
		if first {
			buf = append(buf, " AS `k"...)
			buf = appendInt(buf, i, 1)
			buf = append(buf, '`')
		}
	}
	for i, fd := range set {
		buf = append(buf, ',')
		buf = appendSQL(buf, &fd.col, fd.fn(s.g, e))
		if first {
			buf = append(buf, " AS `v"...)
			buf = appendInt(buf, i, 1)
			buf = append(buf, '`')
		}
	}
	st.buf = buf
	st.rows++
	return st
}

// statements lists the batch's non-empty statements in execution order.
func (b *batch) statements(idempotent bool) []string {
	var out []string
	for _, s := range b.order {
		if s.rows > 0 {
			out = append(out, s.sql(idempotent))
		}
	}
	return out
}
