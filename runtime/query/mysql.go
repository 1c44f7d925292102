package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL and MariaDB error numbers for a statement stopped by its server-side
// time limit.
const (
	errMySQLExecutionTime   = 3024 // ER_QUERY_TIMEOUT (MySQL max_execution_time)
	errMariaDBStatementTime = 1969 // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
)

type mysqlEngine struct {
	db *sql.DB

	mu   sync.Mutex
	sess *mysqlSession // known after the first connection
}

// OpenMySQL returns an engine for a go-sql-driver/mysql DSN. The DSN's
// multiStatements and allowAllFiles are turned off; every connection is a
// read-only session and every query runs in a read-only transaction. It
// does not connect: the first query does.
func OpenMySQL(dsn string) (Engine, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("MySQL DSN: %w", err)
	}
	return openMySQL(cfg)
}

func openMySQL(cfg *mysql.Config) (Engine, error) {
	cfg = cfg.Clone()
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("MySQL DSN: %w", err)
	}
	db := sql.OpenDB(readOnlyConnector{conn})
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &mysqlEngine{db: db}, nil
}

// readOnlyConnector makes every new connection a read-only session.
type readOnlyConnector struct{ driver.Connector }

func (c readOnlyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, errors.New("the MySQL driver cannot run statements on a connection")
	}
	if _, err := ex.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY", nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("making the MySQL session read-only: %w", err)
	}
	return conn, nil
}

func (e *mysqlEngine) Name() string { return MySQL }

func (e *mysqlEngine) Close() error { return e.db.Close() }

// mysqlSession is what the engine learns from the first connection.
type mysqlSession struct {
	mariadb bool
	// sqlMode is the server's sql_mode without ANSI_QUOTES and
	// NO_BACKSLASH_ESCAPES: under those, quotes and backslashes split a
	// text differently from how package sqlread reads it.
	sqlMode string
}

func (e *mysqlEngine) session(ctx context.Context, conn *sql.Conn) (*mysqlSession, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		return e.sess, nil
	}
	var version, mode string
	if err := conn.QueryRowContext(ctx, "SELECT VERSION(), @@SESSION.sql_mode").Scan(&version, &mode); err != nil {
		return nil, err
	}
	var keep []string
	for _, m := range strings.Split(mode, ",") {
		switch m {
		case "", "ANSI", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES":
			continue
		}
		for _, c := range m {
			if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return nil, fmt.Errorf("unexpected sql_mode %q", mode)
			}
		}
		keep = append(keep, m)
	}
	e.sess = &mysqlSession{mariadb: strings.Contains(strings.ToLower(version), "mariadb"), sqlMode: strings.Join(keep, ",")}
	return e.sess, nil
}

func (e *mysqlEngine) Query(ctx context.Context, query string, lim Limits) (res *Result, err error) {
	lim = lim.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	defer func() {
		if err != nil && isMySQLTimeout(ctx, err) {
			err = &timeoutError{limit: lim.Timeout, cause: err}
		}
	}()

	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	sess, err := e.session(ctx, conn)
	if err != nil {
		return nil, err
	}
	// The server stops the statement too, so a cancelled client does not
	// leave it running. Only SELECT honours MySQL's max_execution_time.
	set := "SET SESSION max_execution_time = " + strconv.FormatInt(lim.Timeout.Milliseconds(), 10)
	if sess.mariadb {
		set = "SET SESSION max_statement_time = " + strconv.FormatFloat(lim.Timeout.Seconds(), 'f', 3, 64)
	}
	set += ", SESSION sql_mode = '" + sess.sqlMode + "'"
	// The session is made read-only again before every query: a previous
	// statement on this pooled connection may have tried to lift it.
	for _, q := range []string{"SET SESSION TRANSACTION READ ONLY", set} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	return queryRows(ctx, tx, query, lim, mysqlTypeName, mysqlValue)
}

func isMySQLTimeout(ctx context.Context, err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == errMySQLExecutionTime || me.Number == errMariaDBStatementTime) {
		return true
	}
	return pastDeadline(ctx)
}

func mysqlTypeName(ct *sql.ColumnType) string {
	name := ct.DatabaseTypeName()
	if p, s, ok := ct.DecimalSize(); ok && name == "DECIMAL" {
		return fmt.Sprintf("DECIMAL(%d,%d)", p, s)
	}
	return name
}

// mysqlValue converts what go-sql-driver/mysql scanned into an any:
// int64, uint64, float64, time.Time (parseTime=true), []byte or nil.
func mysqlValue(dbType string, v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case int64:
		return v
	case uint64:
		return uintValue(v)
	case float64:
		if dbType == "FLOAT" {
			return floatValue(v, 32)
		}
		return floatValue(v, 64)
	case float32:
		return floatValue(float64(v), 32)
	case bool:
		return v
	case time.Time:
		return timeText(v, dbType == "DATE")
	case string:
		return v
	case []byte:
		switch dbType {
		case "DECIMAL":
			return json.Number(string(v))
		case "BIT":
			var n uint64
			for _, b := range v {
				n = n<<8 | uint64(b)
			}
			return uintValue(n)
		case "FLOAT", "DOUBLE":
			if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				return floatValue(f, 64)
			}
		case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				return n
			}
		case "UNSIGNED BIGINT", "UNSIGNED INT", "UNSIGNED MEDIUMINT", "UNSIGNED SMALLINT", "UNSIGNED TINYINT":
			if n, err := strconv.ParseUint(string(v), 10, 64); err == nil {
				return uintValue(n)
			}
		}
		return bytesValue(v)
	}
	return fmt.Sprint(v)
}
