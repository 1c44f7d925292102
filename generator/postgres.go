package generator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Postgres is the sink that writes a lab's source tables into
// PostgreSQL, in the public schema of the connection's database, over one
// connection, one transaction per batch, as MySQL does.
type Postgres struct {
	sqlSink
	cfg *pgx.ConnConfig
}

// OpenPostgres connects and checks that the server answers. Errors are
// one line, written for the person running the producer.
func OpenPostgres(ctx context.Context, cfg *pgx.ConnConfig) (*Postgres, error) {
	cfg = cfg.Copy()
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	// The dialect's string literals are standard ones; times are written
	// and read as UTC, as on MySQL.
	cfg.RuntimeParams["standard_conforming_strings"] = "on"
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "labgen produce"
	// Literal statements: nothing to prepare or cache.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(time.Hour)
	p := &Postgres{sqlSink: sqlSink{db: db, d: PostgresDialect}, cfg: cfg}
	p.explain = p.explainPostgres
	p.column = p.rejectedColumnPostgres
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, p.explain(err, "")
	}
	return p, nil
}

func (p *Postgres) addr() string { return net.JoinHostPort(p.cfg.Host, fmt.Sprint(p.cfg.Port)) }

// Where names the server and database for messages: user@host:port/db.
func (p *Postgres) Where() string {
	return fmt.Sprintf("%s@%s/%s", p.cfg.User, p.addr(), p.cfg.Database)
}

// explainPostgres is explain for PostgreSQL's SQLSTATEs.
func (p *Postgres) explainPostgres(err error, table string) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "42P01": // undefined_table
			return fmt.Errorf("table %s does not exist in database %q at %s; create the lab's tables first (sql/postgres/schema.sql of the rendered lab)", table, p.cfg.Database, p.addr())
		case pe.Code == "42703": // undefined_column
			return fmt.Errorf("table %s does not match lab.json: %s; re-create it from the rendered lab's sql/postgres/schema.sql", table, pe.Message)
		case pe.Code == "28P01" || pe.Code == "28000": // invalid password / authorization
			return fmt.Errorf("PostgreSQL at %s refused user %q: %s (check POSTGRES_APP_USER and POSTGRES_APP_PASSWORD in the lab's .env, or --postgres)", p.addr(), p.cfg.User, pe.Message)
		case pe.Code == "42501": // insufficient_privilege
			return fmt.Errorf("PostgreSQL user %q may not write: %s", p.cfg.User, pe.Message)
		case pe.Code == "3D000": // invalid_catalog_name
			return fmt.Errorf("PostgreSQL at %s has no database %q; create the lab's schema first (sql/postgres/schema.sql of the rendered lab)", p.addr(), p.cfg.Database)
		case pe.Code == "23505": // unique_violation
			return fmt.Errorf("%w in %s: %s", ErrDuplicateKey, table, pe.Message)
		case strings.HasPrefix(pe.Code, "22") || pe.Code == "23502": // data_exception, not_null_violation
			return &RejectedError{Server: "PostgreSQL", Table: table, Column: pe.ColumnName, Reason: fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)}
		case isTransientPostgres(pe.Code):
			return Transient(fmt.Errorf("PostgreSQL at %s: %s (SQLSTATE %s)", p.addr(), pe.Message, pe.Code))
		}
		if table != "" {
			return fmt.Errorf("PostgreSQL rejected a write to %s: %s (SQLSTATE %s)", table, pe.Message, pe.Code)
		}
		return fmt.Errorf("PostgreSQL at %s: %s (SQLSTATE %s)", p.addr(), pe.Message, pe.Code)
	}
	// Anything else is the connection: refused, reset, timed out, closed
	// (pgx wraps the network error in its own, with the address; a
	// connection the server dropped mid-transaction is ErrConnClosed on
	// its next statement).
	if isTransientMySQL(err) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isConnectError(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return Transient(fmt.Errorf("cannot reach PostgreSQL at %s: %w", p.addr(), err))
	}
	return fmt.Errorf("PostgreSQL at %s: %v", p.addr(), err)
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// isTransientPostgres tells whether a server error may go away by itself:
// the connection class (08), the server shutting down or starting (57P0x),
// too many connections, a serialization failure or a deadlock.
func isTransientPostgres(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300", "40001", "40P01":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}

// rejectedColumnPostgres finds the column of a refused row whose value
// does not fit its declared type, from information_schema: PostgreSQL's
// "value too long" and "numeric field overflow" do not name it.
func (p *Postgres) rejectedColumnPostgres(ctx context.Context, r *rowStmt, e *RejectedError) string {
	rows, err := p.db.QueryContext(ctx, `SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, r.table)
	if err != nil {
		return ""
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		var charMax, prec, scale *int64
		if rows.Scan(&name, &typ, &charMax, &prec, &scale) != nil {
			return ""
		}
		v, ok := r.value(name)
		if !ok || v == "NULL" {
			continue
		}
		if charMax != nil && strings.HasPrefix(v, "'") {
			s := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), "''", "'")
			if int64(len([]rune(s))) > *charMax {
				return name
			}
			continue
		}
		if !isNumber(v) {
			continue
		}
		switch typ {
		case "smallint", "integer", "bigint":
			bits := map[string]int{"smallint": 16, "integer": 32, "bigint": 64}[typ]
			if _, err := strconv.ParseInt(v, 10, bits); err != nil {
				return name
			}
		case "numeric":
			if prec == nil || scale == nil {
				continue
			}
			d := strings.TrimLeft(strings.TrimPrefix(v, "-"), "0")
			if i := strings.IndexAny(d, ".eE"); i >= 0 {
				d = d[:i]
			}
			if int64(len(d)) > *prec-*scale {
				return name
			}
		}
	}
	return ""
}
