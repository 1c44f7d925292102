package generator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// sqlSink is what the SQL sinks share: one connection pool, the dialect
// their statements are written in, and how their driver's errors read.
type sqlSink struct {
	db *sql.DB
	d  *Dialect
	// explain turns a driver error into a one-line message, marked
	// Transient when the server may come back.
	explain func(err error, table string) error
	// column names the column a rejected value was for when the
	// server's error does not (nil: the error always does).
	column func(ctx context.Context, r *rowStmt, e *RejectedError) string
}

// Dialect is how the sink's server spells statements.
func (m *sqlSink) Dialect() *Dialect { return m.d }

// Close closes the connection.
func (m *sqlSink) Close() error { return m.db.Close() }

// DB is the connection pool, for tests and tools.
func (m *sqlSink) DB() *sql.DB { return m.db }

// Check verifies that every table the plans write exists with the
// columns they fill.
func (m *sqlSink) Check(ctx context.Context, plans []*Plan) error {
	seen := map[string]bool{}
	check := func(t *Table) error {
		if seen[t.SQLName] {
			return nil
		}
		seen[t.SQLName] = true
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = m.d.quoteID(c)
		}
		q := "SELECT " + strings.Join(cols, ",") + " FROM " + m.d.quoteID(t.SQLName) + " LIMIT 0"
		rows, err := m.db.QueryContext(ctx, q)
		if err != nil {
			return m.explain(err, t.SQLName)
		}
		return rows.Close()
	}
	for _, p := range plans {
		if err := check(p.Table); err != nil {
			return err
		}
		for _, f := range p.Follows {
			if err := check(f.Table); err != nil {
				return err
			}
		}
	}
	return nil
}

// NextIndex implements Sink: the parent after the largest key in the
// table, when the key is a sequence.
func (m *sqlSink) NextIndex(ctx context.Context, p *Plan) (int64, error) {
	t := p.Table
	if p.seqKey == nil {
		var one int
		err := m.db.QueryRowContext(ctx, "SELECT 1 FROM "+m.d.quoteID(t.SQLName)+" LIMIT 1").Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, m.explain(err, t.SQLName)
		}
		return 0, fmt.Errorf("table %s already has rows, and its key is not a sequence(), so the producer cannot tell where the last run stopped; empty the table first", t.SQLName)
	}
	var max sql.NullInt64
	if err := m.db.QueryRowContext(ctx, "SELECT MAX("+m.d.quoteID(t.Key[0])+") FROM "+m.d.quoteID(t.SQLName)).Scan(&max); err != nil {
		return 0, m.explain(err, t.SQLName)
	}
	return nextAfter(p.seqKey.Start, p.seqKey.Step, max), nil
}

// nextAfter is the number of the event after the one whose sequence
// value is max.
func nextAfter(start, step int64, max sql.NullInt64) int64 {
	if !max.Valid || max.Int64 < start || step <= 0 {
		return 0
	}
	return (max.Int64-start)/step + 1
}

// Write implements Sink: the statements in one transaction.
func (m *sqlSink) Write(ctx context.Context, stmts []string) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return m.explain(err, "")
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			tx.Rollback()
			return m.explain(err, tableOf(s))
		}
	}
	if err := tx.Commit(); err != nil {
		return m.explain(err, "")
	}
	return nil
}

// tableOf is the table a statement writes, for messages.
func tableOf(stmt string) string {
	for _, p := range []string{"INSERT INTO ", "UPDATE "} {
		if strings.HasPrefix(stmt, p) && len(stmt) > len(p) {
			q := stmt[len(p)]
			rest := stmt[len(p)+1:]
			if i := strings.IndexByte(rest, q); i >= 0 {
				return rest[:i]
			}
		}
	}
	return ""
}
