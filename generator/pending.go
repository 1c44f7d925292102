package generator

// pending is a follow-up waiting for its due time. Everything else about it
// (its delay, its field values) is recomputed from the parent's number when
// it fires, so an entry is 40 bytes however wide the rows are.
type pending struct {
	due        int64 // Unix nanoseconds
	parentTime int64
	index      int64 // the parent event's number
	seq        int64 // the follow-up row's number in its table
	follow     uint16
	outcome    uint16
}

// before orders follow-ups by due time, then by parent and follow-up, so
// that simultaneous ones come out in a fixed order.
func (a *pending) before(b *pending) bool {
	if a.due != b.due {
		return a.due < b.due
	}
	if a.index != b.index {
		return a.index < b.index
	}
	return a.follow < b.follow
}

// pendingQueue is a binary min-heap of follow-ups by due time. It is
// written out rather than built on container/heap so that pushing and
// popping neither box nor allocate.
type pendingQueue struct {
	h []pending
}

func (q *pendingQueue) Len() int { return len(q.h) }

// top is the earliest follow-up; the queue must not be empty.
func (q *pendingQueue) top() *pending { return &q.h[0] }

func (q *pendingQueue) push(p pending) {
	q.h = append(q.h, p)
	i := len(q.h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.h[i].before(&q.h[parent]) {
			break
		}
		q.h[i], q.h[parent] = q.h[parent], q.h[i]
		i = parent
	}
}

func (q *pendingQueue) pop() pending {
	h := q.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.h = h
	// Give memory back after a burst (a drained backfill): keep at most
	// four times what is in use.
	if cap(q.h) > 1024 && len(q.h) < cap(q.h)/4 {
		q.h = append(make([]pending, 0, 2*len(q.h)), q.h...)
	}
	return top
}

// lastDue is the latest due time in the queue (a scan; for reports).
func (q *pendingQueue) lastDue() int64 {
	var m int64
	for i := range q.h {
		if q.h[i].due > m {
			m = q.h[i].due
		}
	}
	return m
}
