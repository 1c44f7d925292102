package publish

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/labgen/labgen/runtime/record"
)

// A page is only as big as the record's limits let it be, whatever its
// record.json holds: each table cell is cut as record.md cuts it
// (record.CellLimits), every other text at textMax characters, and
// either says so.

// ceilingText bounds any text, whatever limits a record declares.
const ceilingText = 4 << 20

// textMax is the most characters of one text the page shows: the record's
// max_bytes (the most a step's output keeps), never less than a cell may
// show, never more than ceilingText.
func textMax(l record.Limits) int {
	n := l.MaxBytes
	if n <= 0 {
		n = record.DefaultMaxBytes
	}
	return min(max(n, l.CellMax(), record.KafkaMaxCell), ceilingText)
}

// textLimit cuts texts, saying how much it left out.
func textLimit(l record.Limits) record.CellLimit {
	return record.CellLimit{Max: textMax(l), Say: true}
}

// capTexts is a copy of r in which every string (of its record.json) is
// cut at textMax. The copy goes through JSON, where every field of a
// record is, so no text is missed.
func capTexts(r *record.Record) (*record.Record, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers come back as they were
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if b, err = json.Marshal(cutStrings(v, textLimit(r.Limits))); err != nil {
		return nil, err
	}
	var out record.Record
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the record with its texts cut: %w", err)
	}
	return &out, nil
}

// cutStrings cuts every string of a decoded JSON value, object keys too
// (a sampled series is named by one).
func cutStrings(v any, lim record.CellLimit) any {
	switch x := v.(type) {
	case string:
		s, _ := lim.Cut(x)
		return s
	case []any:
		for i := range x {
			x[i] = cutStrings(x[i], lim)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			k, _ = lim.Cut(k)
			out[k] = cutStrings(e, lim)
		}
		return out
	}
	return v
}

// tableView is a result table as the page shows it.
type tableView struct {
	Title   string
	Columns []string
	Rows    [][]cellView
}

// cellView is one cell: its text, whether it is SQL NULL, and Cut, what
// the page says of a cut cell ("" when whole).
type cellView struct {
	Text string
	Null bool
	Cut  string
}

// cellOf is s cut at its column's limit (a record that declares a huge
// one still gets textMax).
func cellOf(s string, l record.CellLimit, lim record.Limits) cellView {
	l.Max = min(l.Max, textMax(lim))
	text, cut := l.Cut(s)
	c := cellView{Text: text}
	if cut && !l.Say { // a said cut says it in its text
		c.Cut = fmt.Sprintf("cut at %d characters; record.json keeps the whole value", l.Max)
	}
	return c
}

// stepTables are a step's result tables, from the record as it was read
// (not capTexts' copy, whose cut would hide how long a cell was), each
// cell cut at its column's limit.
func stepTables(s *record.Step, lim record.Limits) []tableView {
	if s.Output == nil {
		return nil
	}
	var out []tableView
	for _, t := range s.Output.Tables {
		limits := record.CellLimits(s, t, lim)
		title, _ := textLimit(lim).Cut(t.Title)
		tv := tableView{Title: title}
		for c, col := range t.Columns {
			tv.Columns = append(tv.Columns, cellOf(col, limits[c], lim).Text)
		}
		for r, row := range t.Rows {
			cells := make([]cellView, len(t.Columns))
			for c := range t.Columns {
				cells[c] = cellOf(cellAt(row, c), limits[c], lim)
				cells[c].Null = t.IsNull(r, c)
			}
			tv.Rows = append(tv.Rows, cells)
		}
		out = append(out, tv)
	}
	return out
}

// sampleCells are a samples table's cells, cut at the record's cell limit
// as record.md cuts them.
func sampleCells(cols []string, rows [][]string, lim record.Limits) ([]string, [][]cellView) {
	l := record.CellLimit{Max: lim.CellMax()}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = cellOf(c, l, lim).Text
	}
	var cells [][]cellView
	for _, row := range rows {
		cr := make([]cellView, len(row))
		for i, v := range row {
			cr[i] = cellOf(v, l, lim)
		}
		cells = append(cells, cr)
	}
	return out, cells
}
