package query

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Engine names, as lab.json spells them.
const (
	MySQL      = "mysql"
	ClickHouse = "clickhouse"
)

// Column is one result column: its name and its type as the database names
// it (e.g. "DECIMAL(12,2)", "Nullable(String)").
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Result is what a query returned. Rows hold JSON-friendly values (see the
// package documentation).
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// Truncated is set when more rows existed than the limits allowed.
	Truncated bool `json:"truncated"`
	// Elapsed is the time from sending the query to the last row read.
	Elapsed time.Duration `json:"-"`
}

// Limits bound one query. A zero field takes its value from DefaultLimits.
type Limits struct {
	// MaxRows is the number of rows kept.
	MaxRows int
	// MaxBytes bounds the size of the kept rows, measured as JSON.
	MaxBytes int
	// Timeout bounds the whole query, from sending it to the last row.
	Timeout time.Duration
}

// DefaultLimits fill the zero fields of a Limits.
var DefaultLimits = Limits{MaxRows: 1000, MaxBytes: 4 << 20, Timeout: 30 * time.Second}

func (l Limits) withDefaults() Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultLimits.MaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultLimits.Timeout
	}
	return l
}

// Engine runs read-only queries on one database server.
type Engine interface {
	// Name is MySQL or ClickHouse.
	Name() string
	// Query runs one statement within the limits. Errors from the server
	// are returned with its message unchanged.
	Query(ctx context.Context, sql string, lim Limits) (*Result, error)
	Close() error
}

// ErrTimeout is wrapped by the error of a query stopped by its timeout.
var ErrTimeout = errors.New("query timeout")

// timeoutError is a query stopped by Limits.Timeout.
type timeoutError struct {
	limit time.Duration
	cause error
}

func (e *timeoutError) Error() string {
	msg := fmt.Sprintf("the query was stopped after its time limit of %s", e.limit)
	if e.cause != nil && !errors.Is(e.cause, context.DeadlineExceeded) {
		msg += ": " + e.cause.Error()
	}
	return msg
}

func (e *timeoutError) Unwrap() []error { return []error{ErrTimeout, e.cause} }

// pastDeadline tells whether ctx's deadline has passed. A driver that sets
// the deadline on its socket can fail with an i/o timeout a moment before
// ctx.Err() reports it, so the clock decides.
func pastDeadline(ctx context.Context) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// rowSource is what database/sql and clickhouse-go rows have in common.
type rowSource interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// collect reads rows until the limits are reached. newDest returns fresh
// scan destinations; convert turns one scanned destination of column i
// into a JSON-friendly value. stop is called when the limits cut the
// result short, so the caller can cancel the query instead of draining it.
func collect(res *Result, rows rowSource, lim Limits, newDest func() []any, convert func(i int, dest any) any) error {
	size := 2 // "[]"
	for rows.Next() {
		if len(res.Rows) >= lim.MaxRows {
			res.Truncated = true
			return nil
		}
		dest := newDest()
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row := make([]any, len(dest))
		for i, d := range dest {
			row[i] = convert(i, d)
		}
		b, err := json.Marshal(row)
		if err != nil {
			return fmt.Errorf("row %d cannot be written as JSON: %w", len(res.Rows)+1, err)
		}
		if size+len(b)+1 > lim.MaxBytes {
			res.Truncated = true
			return nil
		}
		size += len(b) + 1
		res.Rows = append(res.Rows, row)
	}
	return rows.Err()
}

// sqlTx is a database/sql transaction's query method.
type sqlTx interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryRows runs query in a read-only database/sql transaction and reads
// its rows within the limits: the MySQL and PostgreSQL engines differ only
// in how they name a column's type and convert its values.
func queryRows(ctx context.Context, tx sqlTx, query string, lim Limits,
	typeName func(*sql.ColumnType) string, value func(dbType string, v any) any) (*Result, error) {
	start := time.Now()
	// A child context: cancelling it stops a truncated query instead of
	// reading the rest of its rows.
	qctx, stop := context.WithCancel(ctx)
	defer stop()
	rows, err := tx.QueryContext(qctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: make([]Column, len(cts)), Rows: [][]any{}}
	for i, ct := range cts {
		res.Columns[i] = Column{Name: ct.Name(), Type: typeName(ct)}
	}
	newDest := func() []any {
		d := make([]any, len(cts))
		for i := range d {
			d[i] = new(any)
		}
		return d
	}
	convert := func(i int, d any) any { return value(cts[i].DatabaseTypeName(), *(d.(*any))) }
	if err := collect(res, rows, lim, newDest, convert); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	if res.Truncated {
		stop()
	}
	return res, nil
}

// Conversions shared by both engines.

func floatValue(f float64, bits int) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	if bits == 32 {
		// The shortest decimal of the float32, not float64's view of it.
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	}
	return f
}

func uintValue(u uint64) any {
	if u > math.MaxInt64 {
		return json.Number(strconv.FormatUint(u, 10))
	}
	return int64(u)
}

func bytesValue(b []byte) any {
	if utf8.Valid(b) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// timeText formats a time as the server would print it: date only when
// dateOnly, else date and time with as many fraction digits as needed.
func timeText(t time.Time, dateOnly bool) string {
	if dateOnly {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05.999999999")
}
