package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Postgres is PostgreSQL's engine name, as lab.json spells it.
const Postgres = "postgres"

// PostgreSQL's SQLSTATE for a statement stopped by statement_timeout.
const pgQueryCanceled = "57014"

type postgresEngine struct{ db *sql.DB }

// PostgresConfig is the endpoint as pgx's configuration (what the
// producer's sink also opens). The environment's PG* variables fill
// nothing in: an endpoint says all it means.
func (ep Endpoint) PostgresConfig() (*pgx.ConnConfig, error) {
	u := url.URL{Scheme: "postgres", Host: ep.Addr, Path: "/" + ep.Database, RawQuery: ep.Params}
	if ep.User != "" {
		u.User = url.UserPassword(ep.User, ep.Password)
		if ep.Password == "" {
			u.User = url.User(ep.User)
		}
	}
	if _, _, err := net.SplitHostPort(ep.Addr); err != nil {
		return nil, fmt.Errorf("PostgreSQL address %q: %v", ep.Addr, err)
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL parameters: %v", err)
	}
	cfg.ConnectTimeout = 10 * time.Second
	if ep.DialTimeout > 0 {
		cfg.ConnectTimeout = ep.DialTimeout
	}
	return cfg, nil
}

// openPostgres returns a read-only engine: every session starts with
// default_transaction_read_only on (the first lock; the reader user's
// grants are the other) and every query runs in a READ ONLY transaction.
// standard_conforming_strings is set on, the way package sqlread reads
// PostgreSQL's strings. It does not connect: the first query does.
func openPostgres(cfg *pgx.ConnConfig) (Engine, error) {
	cfg = cfg.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["standard_conforming_strings"] = "on"
	cfg.RuntimeParams["application_name"] = "labgen"
	// The extended protocol runs one statement per query: a second one
	// after a ';' is refused by the server itself, not only by sqlread.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &postgresEngine{db: db}, nil
}

func (e *postgresEngine) Name() string { return Postgres }

func (e *postgresEngine) Close() error { return e.db.Close() }

func (e *postgresEngine) Query(ctx context.Context, query string, lim Limits) (res *Result, err error) {
	lim = lim.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	defer func() {
		var pe *pgconn.PgError
		if err != nil && (errors.As(err, &pe) && pe.Code == pgQueryCanceled || pastDeadline(ctx)) {
			err = &timeoutError{limit: lim.Timeout, cause: err}
		}
	}()
	tx, err := e.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// The server stops the statement too, so a cancelled client does not
	// leave it running; SET LOCAL ends with the transaction.
	if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = "+strconv.FormatInt(lim.Timeout.Milliseconds(), 10)); err != nil {
		return nil, err
	}
	return queryRows(ctx, tx, query, lim, postgresTypeName, postgresValue)
}

func postgresTypeName(ct *sql.ColumnType) string {
	name := ct.DatabaseTypeName()
	if p, s, ok := ct.DecimalSize(); ok && name == "NUMERIC" {
		return fmt.Sprintf("NUMERIC(%d,%d)", p, s)
	}
	return name
}

// postgresValue converts what pgx's database/sql driver scanned: int64,
// float64, bool, time.Time, string (numeric and the text of other
// types), []byte or nil.
func postgresValue(dbType string, v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case int64, bool:
		return v
	case float64:
		if dbType == "FLOAT4" {
			return floatValue(v, 32)
		}
		return floatValue(v, 64)
	case time.Time:
		return timeText(v, dbType == "DATE")
	case string:
		if dbType == "NUMERIC" {
			if _, err := strconv.ParseFloat(v, 64); err == nil {
				return json.Number(v)
			}
		}
		return v
	case []byte:
		return bytesValue(v)
	}
	return fmt.Sprint(v)
}
