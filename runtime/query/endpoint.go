package query

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Endpoint is one database server as labgen reaches it: which engine,
// where, as whom and in which database. runtime/labdir resolves endpoints
// (the lab's defaults, .env's users, the flags); Open opens them, so no
// command interprets a DSN of its own.
type Endpoint struct {
	// Engine is MySQL, Postgres or ClickHouse.
	Engine string
	// Protocol is ClickHouse's: ClickHouseNative ("" too) or
	// ClickHouseHTTP (the native stack's chdb speaks only HTTP).
	Protocol string
	// Addr is host:port ("" means the endpoint is not used).
	Addr string
	// Secure is TLS (ClickHouse over https).
	Secure   bool
	Database string
	User     string
	Password string
	// Params are the driver's own connection parameters, as a URL query
	// (MySQL DSN parameters such as tls=true, PostgreSQL's such as
	// sslmode=disable).
	Params string
	// DialTimeout bounds connecting; zero means 10 seconds.
	DialTimeout time.Duration
}

// ClickHouseOptions is the ClickHouse form of an Endpoint, the name older
// callers use.
type ClickHouseOptions = Endpoint

// Open returns a read-only engine for the endpoint (see OpenMySQL and
// OpenClickHouse). It does not connect: the first query does.
func Open(ep Endpoint) (Engine, error) {
	switch ep.Engine {
	case MySQL:
		cfg, err := ep.MySQLConfig()
		if err != nil {
			return nil, err
		}
		return openMySQL(cfg)
	case Postgres:
		cfg, err := ep.PostgresConfig()
		if err != nil {
			return nil, err
		}
		return openPostgres(cfg)
	case ClickHouse:
		return OpenClickHouse(ep)
	case "":
		return nil, errors.New("no engine named for the endpoint")
	}
	return nil, fmt.Errorf("no query engine %q", ep.Engine)
}

// MySQLConfig is the endpoint as go-sql-driver's configuration (what the
// producer's sink also opens).
func (ep Endpoint) MySQLConfig() (*mysql.Config, error) {
	cfg := mysql.NewConfig()
	if ep.Params != "" {
		// Let the driver read the parameters it knows.
		c, err := mysql.ParseDSN("/?" + ep.Params)
		if err != nil {
			return nil, fmt.Errorf("MySQL parameters: %v", err)
		}
		cfg = c
	}
	cfg.Net, cfg.Addr, cfg.DBName, cfg.User, cfg.Passwd = "tcp", ep.Addr, ep.Database, ep.User, ep.Password
	if ep.DialTimeout > 0 {
		cfg.Timeout = ep.DialTimeout
	}
	return cfg, nil
}

// String shows the endpoint for a record or a message, never with its
// password: user:****@tcp(host:port)/db for MySQL (go-sql-driver's form),
// [http://]user@host:port/db for ClickHouse.
func (ep Endpoint) String() string {
	if ep.Addr == "" {
		return ""
	}
	switch ep.Engine {
	case MySQL:
		user := ep.User
		if ep.Password != "" {
			user += ":****"
		}
		return user + "@tcp(" + ep.Addr + ")/" + ep.Database
	case Postgres:
		user := ep.User
		if ep.Password != "" {
			user += ":****"
		}
		return "postgres://" + user + "@" + ep.Addr + "/" + ep.Database
	}
	s := ep.Addr
	if ep.User != "" {
		s = ep.User + "@" + s
	}
	switch {
	case ep.Protocol == ClickHouseHTTP && ep.Secure:
		s = "https://" + s
	case ep.Protocol == ClickHouseHTTP:
		s = "http://" + s
	}
	if ep.Database != "" {
		s += "/" + ep.Database
	}
	return s
}

// Short is user@host:port/db, what a command says it uses.
func (ep Endpoint) Short() string {
	return fmt.Sprintf("%s@%s/%s", ep.User, ep.Addr, ep.Database)
}
