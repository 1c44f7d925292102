package generator

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL is the sink that writes a lab's source tables into MySQL (or
// MariaDB). Statements go over one connection, one transaction per batch.
type MySQL struct {
	sqlSink
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
	m := &MySQL{sqlSink: sqlSink{db: db, d: MySQLDialect}, cfg: cfg}
	m.explain = m.explainMySQL
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, m.explain(err, "")
	}
	return m, nil
}

// Where names the server and database for messages: user@host:port/db.
func (m *MySQL) Where() string {
	return fmt.Sprintf("%s@%s/%s", m.cfg.User, m.cfg.Addr, m.cfg.DBName)
}

// explain turns a driver error into a one-line message, marked Transient
// when the server may come back.
func (m *MySQL) explainMySQL(err error, table string) error {
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
		case 1406, // ER_DATA_TOO_LONG
			1264, // ER_WARN_DATA_OUT_OF_RANGE
			1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
			1292, // ER_TRUNCATED_WRONG_VALUE (dates)
			1048: // ER_BAD_NULL_ERROR
			e := &RejectedError{Server: "MySQL", Table: table, Reason: me.Error()}
			if m := mysqlColumnRE.FindStringSubmatch(me.Message); m != nil {
				e.Column = m[1]
			}
			return e
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
