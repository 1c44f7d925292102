package generator

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrRejected is what a sink's error wraps when the server refused a
// value: too long for its column, out of its range, not of its type.
// The run then writes the batch's rows one by one to find the row,
// commits the rows before it, and stops with the table, the column, the
// value and the row's key.
var ErrRejected = errors.New("value rejected")

// RejectedError is a write the server refused because of a value.
type RejectedError struct {
	Server string // "MySQL", "PostgreSQL"
	Table  string
	// Column is the column the server names, "" when it does not.
	Column string
	// Reason is the server's words, with its error number.
	Reason string
}

func (e *RejectedError) Error() string {
	if e.Table == "" {
		return fmt.Sprintf("%s rejected a write: %s", e.Server, e.Reason)
	}
	return fmt.Sprintf("%s rejected a write to %s: %s", e.Server, e.Table, e.Reason)
}

func (e *RejectedError) Is(target error) bool { return target == ErrRejected }

var mysqlColumnRE = regexp.MustCompile(`column '([^']+)'`)

// rowStmt is one row of a batch as a statement of its own.
type rowStmt struct {
	table string
	// cols and vals are the row's columns and their SQL literals; keys
	// the positions of the key columns.
	cols, vals []string
	keys       []int
	sql        string
}

// key spells the row's key: order_id=17.
func (r *rowStmt) key() string {
	var parts []string
	for _, k := range r.keys {
		if k < len(r.cols) && k < len(r.vals) {
			parts = append(parts, r.cols[k]+"="+r.vals[k])
		}
	}
	return strings.Join(parts, ", ")
}

// value is the literal written to column c, "" if the row has none.
func (r *rowStmt) value(c string) (string, bool) {
	for i, n := range r.cols {
		if strings.EqualFold(n, c) && i < len(r.vals) {
			return r.vals[i], true
		}
	}
	return "", false
}

// rows lists the batch's rows in execution order, each as a statement of
// its own in its idempotent form; finish must have been called.
func (b *batch) rows() []rowStmt {
	var out []rowStmt
	for _, s := range b.order {
		start := len(s.head)
		for _, end := range s.ends {
			text := string(s.buf[start:end])
			start = end
			r := rowStmt{table: s.table, cols: s.cols, keys: s.keys}
			if s.update {
				text = strings.TrimPrefix(strings.TrimPrefix(text, " UNION ALL "), "SELECT ")
				vals := splitValues(text)
				var sel strings.Builder
				sel.WriteString("SELECT ")
				for i, v := range vals {
					if j := strings.LastIndex(v, " AS "); j >= 0 && !strings.ContainsAny(v[j:], "'()") {
						v = v[:j]
					}
					vals[i] = v
					if i > 0 {
						sel.WriteByte(',')
					}
					kind, n := byte('k'), i
					if i >= len(s.keys) {
						kind, n = 'v', i-len(s.keys)
					}
					sel.WriteString(v)
					sel.Write(appendAlias(nil, kind, n))
				}
				r.vals = vals
				r.sql = s.head + sel.String() + s.idem
			} else {
				text = strings.TrimPrefix(text, ",")
				r.vals = splitValues(strings.TrimSuffix(strings.TrimPrefix(text, "("), ")"))
				r.sql = s.head + text + s.idem
			}
			out = append(out, r)
		}
	}
	return out
}

// splitValues splits a row's literals at the commas outside quotes and
// parentheses.
func splitValues(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			for i++; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// rowWriter is a sink that can write a batch's rows one by one.
type rowWriter interface {
	// writeRows runs the rows in one transaction. When the server
	// rejects a value of row i, it commits the rows before it and
	// returns i and the error; other errors roll everything back and
	// return -1.
	writeRows(ctx context.Context, rows []rowStmt) (int, error)
	// rejectedColumn names the column of the row the server refused
	// when its error did not; "" if it cannot tell.
	rejectedColumn(ctx context.Context, r *rowStmt, e *RejectedError) string
}

func (m *sqlSink) writeRows(ctx context.Context, rows []rowStmt) (int, error) {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return -1, m.explain(err, "")
	}
	for i := range rows {
		if _, err := tx.ExecContext(ctx, rows[i].sql); err != nil {
			err = m.explain(err, rows[i].table)
			if !errors.Is(err, ErrRejected) {
				tx.Rollback()
				return -1, err
			}
			// PostgreSQL aborts the whole transaction on an error: write
			// the rows before the refused one again, in one of their own.
			tx.Rollback()
			if i > 0 {
				if _, werr := m.writeRows(ctx, rows[:i]); werr != nil {
					return -1, werr
				}
			}
			return i, err
		}
	}
	if err := tx.Commit(); err != nil {
		return -1, m.explain(err, "")
	}
	return len(rows), nil
}

func (m *sqlSink) rejectedColumn(ctx context.Context, r *rowStmt, e *RejectedError) string {
	if m.column == nil {
		return ""
	}
	return m.column(ctx, r, e)
}

// isolateRejected writes the batch's rows one by one after the server
// refused a value in it: the rows before the refused one are committed,
// and the error names the table, the column, the value and the row's key.
// It returns nil when every row went in (the batch is then written).
func (r *runner) isolateRejected(ctx context.Context, b *batch, rej error) error {
	rw, ok := r.sink.(rowWriter)
	if !ok {
		return rej
	}
	rows := b.rows()
	actx, cancel := context.WithTimeout(ctx, r.opts.AttemptTimeout)
	defer cancel()
	i, err := rw.writeRows(actx, rows)
	if err == nil {
		return nil
	}
	if i < 0 && IsTransient(err) {
		return err // retried: the batch is sent again whole
	}
	var re *RejectedError
	if i < 0 || !errors.As(err, &re) {
		return fmt.Errorf("%v (while writing the rejected batch row by row: %v)", rej, err)
	}
	row := &rows[i]
	col := re.Column
	if col == "" {
		col = rw.rejectedColumn(actx, row, re)
	}
	what := "a row"
	if col != "" {
		if v, ok := row.value(col); ok {
			what = fmt.Sprintf("column %s value %s", col, v)
		} else {
			what = "column " + col
		}
	} else {
		var vals []string
		for k, c := range row.cols {
			if k < len(row.vals) {
				vals = append(vals, c+"="+row.vals[k])
			}
		}
		what = "a row (" + strings.Join(vals, ", ") + ")"
	}
	kept := "no row of the batch before it was written"
	if i == 1 {
		kept = "the row of the batch before it was written"
	} else if i > 1 {
		kept = fmt.Sprintf("the %d rows of the batch before it were written", i)
	}
	return fmt.Errorf("%s rejected %s of table %s, key %s: %s; %s, and the producer stops (make the column fit the lab's values)",
		re.Server, what, row.table, row.key(), re.Reason, kept)
}
