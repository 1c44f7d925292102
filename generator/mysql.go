package generator

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL is the sink that writes a lab's source tables into MySQL (or
// MariaDB). Statements go over one connection, one transaction per batch.
type MySQL struct {
	db  *sql.DB
	cfg *mysql.Config
}

// OpenMySQL connects and checks that the server answers. Errors are one
// line, written for the person running the producer.
func OpenMySQL(ctx context.Context, cfg *mysql.Config) (*MySQL, error) {
	cfg = cfg.Clone()
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	// The producer reports connection trouble itself, once, instead of
	// the driver's log lines on every failed attempt.
	cfg.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("MySQL: %v", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(time.Hour)
	m := &MySQL{db: db, cfg: cfg}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, m.explain(err, "")
	}
	return m, nil
}

// Close closes the connection.
func (m *MySQL) Close() error { return m.db.Close() }

// DB is the connection pool, for tests and tools.
func (m *MySQL) DB() *sql.DB { return m.db }

// Where names the server and database for messages: user@host:port/db.
func (m *MySQL) Where() string {
	return fmt.Sprintf("%s@%s/%s", m.cfg.User, m.cfg.Addr, m.cfg.DBName)
}

// Check verifies that every table the plans write exists with the
// columns they fill.
func (m *MySQL) Check(ctx context.Context, plans []*Plan) error {
	seen := map[string]bool{}
	check := func(t *Table) error {
		if seen[t.SQLName] {
			return nil
		}
		seen[t.SQLName] = true
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = quoteID(c)
		}
		q := "SELECT " + strings.Join(cols, ",") + " FROM " + quoteID(t.SQLName) + " LIMIT 0"
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
func (m *MySQL) NextIndex(ctx context.Context, p *Plan) (int64, error) {
	t := p.Table
	if p.seqKey == nil {
		var one int
		err := m.db.QueryRowContext(ctx, "SELECT 1 FROM "+quoteID(t.SQLName)+" LIMIT 1").Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, m.explain(err, t.SQLName)
		}
		return 0, fmt.Errorf("table %s already has rows, and its key is not a sequence(), so the producer cannot tell where the last run stopped; empty the table first", t.SQLName)
	}
	var max sql.NullInt64
	if err := m.db.QueryRowContext(ctx, "SELECT MAX("+quoteID(t.Key[0])+") FROM "+quoteID(t.SQLName)).Scan(&max); err != nil {
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
func (m *MySQL) Write(ctx context.Context, stmts []string) error {
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

func tableOf(stmt string) string {
	for _, p := range []string{"INSERT INTO `", "UPDATE `"} {
		if strings.HasPrefix(stmt, p) {
			rest := stmt[len(p):]
			if i := strings.Index(rest, "`"); i >= 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// explain turns a driver error into a one-line message, marked Transient
// when the server may come back.
func (m *MySQL) explain(err error, table string) error {
	if err == nil {
		return nil
	}
	if isTransientMySQL(err) {
		var op *net.OpError
		if errors.As(err, &op) {
			return Transient(fmt.Errorf("cannot reach MySQL at %s: %w", m.cfg.Addr, op.Err))
		}
		return Transient(fmt.Errorf("MySQL at %s: %w", m.cfg.Addr, err))
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1146: // ER_NO_SUCH_TABLE
			return fmt.Errorf("table %s does not exist in database %q at %s; create the lab's tables first (sql/mysql/schema.sql of the rendered lab)", table, m.cfg.DBName, m.cfg.Addr)
		case 1054: // ER_BAD_FIELD_ERROR
			return fmt.Errorf("table %s does not match lab.json: %s; re-create it from the rendered lab's sql/mysql/schema.sql", table, me.Message)
		case 1045: // ER_ACCESS_DENIED_ERROR
			return fmt.Errorf("MySQL at %s refused user %q: %s (check MYSQL_APP_USER and MYSQL_APP_PASSWORD in the lab's .env, or --mysql)", m.cfg.Addr, m.cfg.User, me.Message)
		case 1044, 1142, 1143: // access to database / table / column denied
			return fmt.Errorf("MySQL user %q may not write: %s", m.cfg.User, me.Message)
		case 1049: // ER_BAD_DB_ERROR
			return fmt.Errorf("MySQL at %s has no database %q; create the lab's schema first (sql/mysql/schema.sql of the rendered lab)", m.cfg.Addr, m.cfg.DBName)
		case 1062: // ER_DUP_ENTRY
			return fmt.Errorf("%w in %s: %s", ErrDuplicateKey, table, me.Message)
		case 1046: // ER_NO_DB_ERROR
			return fmt.Errorf("no database selected: name one in --mysql, as in user:password@tcp(host:3306)/shop")
		}
		if table != "" {
			return fmt.Errorf("MySQL rejected a write to %s: %s", table, me.Error())
		}
		return fmt.Errorf("MySQL at %s: %s", m.cfg.Addr, me.Error())
	}
	return fmt.Errorf("MySQL at %s: %v", m.cfg.Addr, err)
}

// isTransientMySQL tells whether an error may go away by itself: the
// connection broke or the server is restarting or overloaded.
func isTransientMySQL(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1040, // too many connections
			1053, // server shutdown in progress
			1205, // lock wait timeout
			1213, // deadlock
			1317, // query interrupted
			1927, // connection killed (MariaDB)
			2006, // server has gone away
			2013, // lost connection
			4031: // disconnected for inactivity (MySQL 8)
			return true
		}
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
