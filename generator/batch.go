package generator

import (
	"slices"
	"strings"
)

// batch is a group of events written together, in one transaction, as
// multi-row statements: the parents' INSERTs, then the follow-ups'
// INSERTs, then the follow-ups' updates of their parents. Each table's
// rows go into as many statements of at most limits.rows rows (and about
// limits.bytes bytes) as they need.
//
// A batch is first sent with plain INSERTs, the cheapest for the server.
// If that attempt fails, every later attempt uses the idempotent form
// (INSERT … ON DUPLICATE KEY UPDATE with a no-op; the UPDATEs set fixed
// values anyway), so a batch whose commit went unacknowledged can be sent
// again without duplicating or changing anything.
//
// Write-combining (limits.absorb, the logical clock only): a follow-up's
// update of a parent row that is in the same batch is applied to that row
// before it is written, instead of as an UPDATE; the parent is then
// inserted in the state it has at the end of the batch. The tables end up
// the same (the batch is one transaction, so no reader sees the
// difference in between), and an UPDATE costs the server about two
// INSERTs. What is lost is the row's intermediate state in the binlog (an
// order inserted CREATED then updated to PAID becomes one INSERT of a PAID
// order), which is why the wall clock, where each state must reach MySQL
// when it happens for CDC to see the transition, never combines.
type batch struct {
	per    []batchStream
	order  []*stmt // every statement, in execution order (set by finish)
	events int
	counts []int64 // Stats counters to add once written
	lastT  int64   // time of the latest event
	full   bool
	limits batchLimits
	// bytes is the size of the statements so far, the parents' estimated
	// (they are written out by finish).
	bytes int
	// absorbed is the updates applied to a parent row of the batch.
	absorbed int64

	vals  []Value // scratch for finish
	set   []bool
	chain []int32
}

type batchLimits struct {
	rows  int // rows per statement
	bytes int // bytes per statement
	// txRows bounds the rows of one table in a batch, txBytes the bytes of
	// a batch: the transaction's size.
	txRows, txBytes int
	// absorb applies updates to parent rows of the same batch.
	absorb bool
}

// batchStream holds one stream's rows.
type batchStream struct {
	s *Stream
	// parents are the batch's parent events, numbers first, first+1, …;
	// their rows are written out by finish, once the updates they absorb
	// are known.
	parents []bufParent
	first   int64
	parent  chunks
	follows []chunks
	updates []*chunks // nil entries for follow-ups without update
	// absorbed are the updates applied to parents of the batch.
	absorbed []absorbedUpdate
	// updated holds the parents updated by UPDATE statements of this batch
	// when two follow-ups may update the same row: a second update of a
	// row ends the batch, so that updates land in time order.
	updated map[int64]struct{}
	// rowMax is the longest parent row written so far, for estimating the
	// size of those not yet written.
	rowMax int
}

// bufParent is a parent event of a batch.
type bufParent struct {
	time int64
	upd  int32 // the latest update absorbed into the row, -1 for none
}

// absorbedUpdate is a follow-up whose update was applied to its parent's
// row before it was written.
type absorbedUpdate struct {
	ev   Event
	prev int32 // the update of the same row absorbed before it, or -1
}

// chunks are the statements of one table of a batch, of at most
// limits.rows rows each. The statements are kept for the next batch.
type chunks struct {
	proto *stmt
	list  []*stmt
	n     int // statements in use
	rows  int // rows in them
}

// room is the statement the next row goes into.
func (c *chunks) room(l *batchLimits) *stmt {
	if c.n > 0 {
		if s := c.list[c.n-1]; s.rows < l.rows && len(s.buf) < l.bytes {
			return s
		}
	}
	if c.n == len(c.list) {
		pr := c.proto
		s := &stmt{d: pr.d, head: pr.head, tail: pr.tail, idem: pr.idem, table: pr.table, cols: pr.cols, keys: pr.keys, update: pr.update}
		s.reset()
		c.list = append(c.list, s)
	}
	c.n++
	return c.list[c.n-1]
}

func (c *chunks) reset() {
	for _, s := range c.list[:c.n] {
		s.reset()
	}
	c.n, c.rows = 0, 0
}

// stmt is one multi-row statement being built.
type stmt struct {
	d    *Dialect
	head string // INSERT … VALUES  /  UPDATE … JOIN (
	tail string // "" / ) AS u ON … SET …
	// idem replaces tail in the idempotent form: ON DUPLICATE KEY …
	idem string
	buf  []byte // head + rows so far
	rows int
	// ends is where each row ends in buf, for writing the rows one by
	// one when the server rejects a value (rejected.go).
	ends []int
	// table is the table written, cols the columns of a row's values
	// (an update's: the parent's key, then the columns it sets), keys
	// the positions of the key columns among them; update tells an
	// UPDATE from an INSERT.
	table  string
	cols   []string
	keys   []int
	update bool
}

func (s *stmt) reset() {
	s.buf = append(s.buf[:0], s.head...)
	s.rows = 0
	s.ends = s.ends[:0]
}

// sql is the finished statement, in its idempotent form or not.
func (s *stmt) sql(idempotent bool) string {
	if idempotent {
		return string(s.buf) + s.idem
	}
	return string(s.buf) + s.tail
}

func quoteID(id string) string { return "`" + strings.ReplaceAll(id, "`", "``") + "`" }

func insertStmt(d *Dialect, t *Table) *stmt {
	var h strings.Builder
	h.WriteString("INSERT INTO ")
	h.WriteString(d.quoteID(t.SQLName))
	h.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			h.WriteByte(',')
		}
		h.WriteString(d.quoteID(c))
	}
	h.WriteString(") VALUES ")
	// A no-op on a duplicate key makes the INSERT idempotent without
	// INSERT IGNORE, which would also turn data errors into warnings;
	// PostgreSQL's ON CONFLICT DO NOTHING skips only key conflicts.
	idem := " ON CONFLICT DO NOTHING"
	if !d.pg {
		k := quoteID(t.Columns[0])
		if len(t.Key) > 0 {
			k = quoteID(t.Key[0])
		}
		idem = " ON DUPLICATE KEY UPDATE " + k + "=" + k
	}
	s := &stmt{d: d, head: h.String(), idem: idem, table: t.SQLName, cols: t.Columns}
	for _, k := range t.Key {
		if i := slices.Index(t.Columns, k); i >= 0 {
			s.keys = append(s.keys, i)
		}
	}
	s.reset()
	return s
}

// updateStmt builds one statement for many rows over a derived table u of
// (SELECT … AS k0, … AS v0 UNION ALL SELECT …): on MySQL UPDATE parent AS
// t JOIN (…) AS u ON t.key = u.k0 SET t.col = u.v0, portable between
// MySQL and MariaDB; on PostgreSQL UPDATE parent AS t SET col = u.v0::type
// FROM (…) AS u WHERE t.key = u.k0, with casts because the derived
// table's quoted literals are text there.
func updateStmt(d *Dialect, parent *Table, cols []string, fields []*field) *stmt {
	var on strings.Builder
	for i, k := range parent.Key {
		if i > 0 {
			on.WriteString(" AND ")
		}
		on.WriteString("t." + d.quoteID(k) + "=u.k" + itoa(i))
	}
	var set strings.Builder
	for i, c := range cols {
		if i > 0 {
			set.WriteByte(',')
		}
		if d.pg {
			set.WriteString(d.quoteID(c) + "=u.v" + itoa(i) + "::" + fields[i].col.typ.Postgres())
		} else {
			set.WriteString("t." + d.quoteID(c) + "=u.v" + itoa(i))
		}
	}
	var s *stmt
	if d.pg {
		tail := ") AS u WHERE " + on.String()
		s = &stmt{d: d, head: "UPDATE " + d.quoteID(parent.SQLName) + " AS t SET " + set.String() + " FROM (", tail: tail, idem: tail}
	} else {
		tail := ") AS u ON " + on.String() + " SET " + set.String()
		s = &stmt{d: d, head: "UPDATE " + d.quoteID(parent.SQLName) + " AS t JOIN (", tail: tail, idem: tail}
	}
	s.table, s.update = parent.SQLName, true
	s.cols = append(slices.Clip(parent.Key), cols...)
	for i := range parent.Key {
		s.keys = append(s.keys, i)
	}
	s.reset()
	return s
}

func itoa(i int) string { return string(appendInt(nil, i, 1)) }

func newBatch(d *Dialect, streams []*Stream, limits batchLimits, ncounts int) *batch {
	b := &batch{per: make([]batchStream, len(streams)), counts: make([]int64, ncounts), limits: limits}
	width := 0
	for i, s := range streams {
		p := s.plan
		bs := &b.per[i]
		bs.s = s
		bs.parent.proto = insertStmt(d, p.Table)
		nupd := 0
		for _, f := range p.Follows {
			bs.follows = append(bs.follows, chunks{proto: insertStmt(d, f.Table)})
			var u *chunks
			if f.update != nil {
				u = &chunks{proto: updateStmt(d, p.Table, f.updateCols, f.update)}
				nupd++
			}
			bs.updates = append(bs.updates, u)
		}
		if nupd > 1 {
			bs.updated = map[int64]struct{}{}
		}
		width = max(width, len(p.fields))
	}
	b.vals = make([]Value, width)
	b.set = make([]bool, width)
	return b
}

func (b *batch) reset() {
	for i := range b.per {
		bs := &b.per[i]
		bs.parents = bs.parents[:0]
		bs.absorbed = bs.absorbed[:0]
		bs.parent.reset()
		for k := range bs.follows {
			bs.follows[k].reset()
			if u := bs.updates[k]; u != nil {
				u.reset()
			}
		}
		clear(bs.updated)
	}
	clear(b.counts)
	b.order = b.order[:0]
	b.events, b.lastT, b.full, b.bytes, b.absorbed = 0, 0, false, 0, 0
}

// absorbs tells whether the follow-up's update is applied to its parent's
// row in the batch rather than sent as an UPDATE: the parent is in the
// batch, and every update of the plan can be applied so (were some sent
// as UPDATEs, which run after the INSERTs, an earlier update could land
// after a later one).
func (b *batch) absorbs(bs *batchStream, ev *Event) bool {
	if !b.limits.absorb || !bs.s.plan.combinable {
		return false
	}
	pos := ev.Index - bs.first
	return pos >= 0 && pos < int64(len(bs.parents))
}

// fits tells whether the event can join the batch; false means the batch
// must be written first.
func (b *batch) fits(si int, ev *Event) bool {
	if b.full {
		return false
	}
	bs := &b.per[si]
	if ev.Follow < 0 {
		// A batch's parents are consecutive (the stream makes them so).
		return len(bs.parents) == 0 || ev.Index == bs.first+int64(len(bs.parents))
	}
	if bs.updated != nil && bs.updates[ev.Follow] != nil && !b.absorbs(bs, ev) {
		if _, dup := bs.updated[ev.Index]; dup {
			return false
		}
	}
	return true
}

// add appends the event; the caller checked fits. counter is the Stats
// counter the event adds one to.
func (b *batch) add(s *Stream, si int, ev *Event, counter int) {
	bs := &b.per[si]
	p := s.plan
	rows := 0
	if ev.Follow < 0 {
		if len(bs.parents) == 0 {
			bs.first = ev.Index
		}
		bs.parents = append(bs.parents, bufParent{time: ev.Time, upd: -1})
		if bs.rowMax == 0 {
			// Measure one row, to estimate the size of those to come.
			e := ev.ctx()
			st := &stmt{d: bs.parent.proto.d}
			appendRow(st, s, p.fields, &e)
			bs.rowMax = len(st.buf)
		}
		b.bytes += bs.rowMax + 1
		rows = len(bs.parents)
	} else {
		f := p.Follows[ev.Follow]
		e := ev.ctx()
		fc := &bs.follows[ev.Follow]
		st := fc.room(&b.limits)
		n := len(st.buf)
		appendRow(st, s, f.fields, &e)
		fc.rows++
		b.bytes += len(st.buf) - n
		rows = fc.rows
		if u := bs.updates[ev.Follow]; u != nil {
			if b.absorbs(bs, ev) {
				bp := &bs.parents[ev.Index-bs.first]
				bs.absorbed = append(bs.absorbed, absorbedUpdate{ev: *ev, prev: bp.upd})
				bp.upd = int32(len(bs.absorbed) - 1)
				b.absorbed++
			} else {
				pe := ectx{index: ev.Index, seq: ev.Index, time: ev.ParentTime, parentTime: ev.ParentTime}
				st := u.room(&b.limits)
				n := len(st.buf)
				appendUpdate(st, s, p.keyVals, &pe, f.update, &e)
				u.rows++
				b.bytes += len(st.buf) - n
				if bs.updated != nil {
					bs.updated[ev.Index] = struct{}{}
				}
			}
		}
	}
	b.counts[counter]++
	b.events++
	if ev.Time > b.lastT {
		b.lastT = ev.Time
	}
	if rows >= b.limits.txRows || b.bytes >= b.limits.txBytes {
		b.full = true
	}
}

// finish writes out the parents' rows and lists the statements in
// execution order: parents first, then follow-ups, then updates, so that
// a follow-up row or an update never precedes the parent row it refers
// to. Calling it again rebuilds the same statements.
func (b *batch) finish() {
	b.order = b.order[:0]
	for i := range b.per {
		bs := &b.per[i]
		bs.parent.reset()
		for k := range bs.parents {
			st := bs.parent.room(&b.limits)
			n := len(st.buf)
			b.appendParent(st, bs, k)
			bs.parent.rows++
			bs.rowMax = max(bs.rowMax, len(st.buf)-n)
		}
		b.order = append(b.order, bs.parent.list[:bs.parent.n]...)
	}
	for i := range b.per {
		for _, c := range b.per[i].follows {
			b.order = append(b.order, c.list[:c.n]...)
		}
	}
	for i := range b.per {
		for _, c := range b.per[i].updates {
			if c != nil {
				b.order = append(b.order, c.list[:c.n]...)
			}
		}
	}
}

// appendParent appends the row of the batch's parent number k, with the
// updates it absorbed applied, the earliest first.
func (b *batch) appendParent(st *stmt, bs *batchStream, k int) {
	s := bs.s
	p := s.plan
	bp := &bs.parents[k]
	idx := bs.first + int64(k)
	pe := ectx{index: idx, seq: idx, time: bp.time, parentTime: bp.time}
	if bp.upd < 0 {
		appendRow(st, s, p.fields, &pe)
		return
	}
	vals, set := b.vals[:len(p.fields)], b.set[:len(p.fields)]
	clear(set)
	chain := b.chain[:0]
	for u := bp.upd; u >= 0; u = bs.absorbed[u].prev {
		chain = append(chain, u)
	}
	b.chain = chain
	for j := len(chain) - 1; j >= 0; j-- {
		ev := &bs.absorbed[chain[j]].ev
		f := p.Follows[ev.Follow]
		e := ev.ctx()
		for m, at := range f.updateAt {
			vals[at] = f.update[m].fn(s.g, &e)
			set[at] = true
		}
	}
	for i, fd := range p.fields {
		if !set[i] {
			vals[i] = fd.fn(s.g, &pe)
		}
	}
	buf := st.buf
	if st.rows > 0 {
		buf = append(buf, ',')
	}
	buf = append(buf, '(')
	for i, fd := range p.fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = st.d.appendValue(buf, &fd.col, vals[i])
	}
	st.buf = append(buf, ')')
	st.rows++
	st.ends = append(st.ends, len(st.buf))
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
		buf = st.d.appendValue(buf, &fd.col, fd.fn(s.g, e))
	}
	st.buf = append(buf, ')')
	st.rows++
	st.ends = append(st.ends, len(st.buf))
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
		buf = st.d.appendValue(buf, &fd.col, fd.fn(s.g, pe))
		if first {
			buf = appendAlias(buf, 'k', i)
		}
	}
	for i, fd := range set {
		buf = append(buf, ',')
		buf = st.d.appendValue(buf, &fd.col, fd.fn(s.g, e))
		if first {
			buf = appendAlias(buf, 'v', i)
		}
	}
	st.buf = buf
	st.rows++
	st.ends = append(st.ends, len(st.buf))
	return st
}

// statements lists the batch's statements in execution order, in their
// idempotent form or not; finish must have been called.
func (b *batch) statements(idempotent bool) []string {
	out := make([]string, 0, len(b.order))
	for _, s := range b.order {
		if s.rows > 0 {
			out = append(out, s.sql(idempotent))
		}
	}
	return out
}
