package generator

import (
	"bufio"
	"io"
	"time"
)

// Sample writes the first n events of the streams, in time order, as JSON
// lines and writes nothing anywhere else. Columns appear in field order:
//
//	{"time":"…","event":"shop","table":"orders","row":{"order_id":1,…}}
//	{"time":"…","event":"payment","outcome":"PAID","table":"payments","row":{…},
//	 "update":{"table":"orders","key":{"order_id":1},"set":{"order_status":"PAID",…}}}
//
// The lines depend only on the seed, the lab and the streams' start, so two
// runs print the same bytes.
func Sample(w io.Writer, streams []*Stream, n int) error {
	bw := bufio.NewWriter(w)
	m := merged(streams)
	var line []byte
	for range n {
		s, _, ok := m.nextStream()
		if !ok {
			break
		}
		ev, _ := s.Next()
		line = s.appendJSONEvent(line[:0], &ev)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (s *Stream) appendJSONEvent(b []byte, ev *Event) []byte {
	p := s.plan
	e := ev.ctx()
	b = append(b, `{"time":`...)
	b = appendJSONString(b, time.Unix(0, ev.Time).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	if ev.Follow < 0 {
		b = append(b, `,"event":`...)
		b = appendJSONString(b, p.Name)
		b = append(b, `,"table":`...)
		b = appendJSONString(b, p.Table.Name)
		b = append(b, `,"row":`...)
		b = s.appendJSONObject(b, p.fields, &e)
		return append(b, '}')
	}
	f := p.Follows[ev.Follow]
	b = append(b, `,"event":`...)
	b = appendJSONString(b, f.Name)
	b = append(b, `,"outcome":`...)
	b = appendJSONString(b, f.Outcomes[ev.Outcome])
	b = append(b, `,"table":`...)
	b = appendJSONString(b, f.Table.Name)
	b = append(b, `,"row":`...)
	b = s.appendJSONObject(b, f.fields, &e)
	if f.update != nil {
		b = append(b, `,"update":{"table":`...)
		b = appendJSONString(b, p.Table.Name)
		b = append(b, `,"key":`...)
		pe := ectx{index: ev.Index, seq: ev.Index, time: ev.ParentTime, parentTime: ev.ParentTime}
		b = s.appendJSONObject(b, p.keyVals, &pe)
		b = append(b, `,"set":`...)
		b = s.appendJSONObject(b, f.update, &e)
		b = append(b, '}')
	}
	return append(b, '}')
}

func (s *Stream) appendJSONObject(b []byte, fields []*field, e *ectx) []byte {
	b = append(b, '{')
	for i, fd := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, fd.col.name)
		b = append(b, ':')
		b = appendJSON(b, &fd.col, fd.fn(s.g, e))
	}
	return append(b, '}')
}
