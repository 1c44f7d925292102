package labdir

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/runtime/query"
)

// Endpoints say where the lab's services are. A database engine without
// an endpoint is absent from DB, and Unavailable says why.
type Endpoints struct {
	// DB are the database servers by engine (query.MySQL, query.ClickHouse).
	DB map[string]query.Endpoint
	// Missing says, by engine, why an engine has no endpoint.
	Missing map[string]string
	Kafka   []string
	Flink   string
	Gateway string
}

// Overrides are what the flags of a command (--mysql, --postgres, --clickhouse, --kafka,
// --flink, --gateway) say; empty means the lab's default.
type Overrides struct {
	// DB are --mysql/--postgres/--clickhouse values by engine: host:port,
	// a URL (mysql://, postgres://, clickhouse://, http(s)://) or, for MySQL, a go-sql-driver
	// DSN. What a value leaves out (user, password, database) is the
	// lab's.
	DB      map[string]string
	Kafka   string
	Flink   string
	Gateway string
}

// Role is whom a command connects to a database as.
type Role int

const (
	// Reader is the read-only user of query steps and the console.
	Reader Role = iota
	// App is the producer's user, who writes the source tables.
	App
)

// engineInfo is what labdir knows of a database engine: its name in
// messages and flags, and the .env keys of its users per role.
type engineInfo struct {
	title string
	users map[Role][2]string // user key, password key
}

var engines = map[string]engineInfo{
	query.MySQL: {title: "MySQL", users: map[Role][2]string{
		Reader: {MySQLReaderUser, MySQLReaderPassword},
		App:    {MySQLAppUser, MySQLAppPassword}}},
	query.Postgres: {title: "PostgreSQL", users: map[Role][2]string{
		Reader: {PostgresReaderUser, PostgresReaderPassword},
		App:    {PostgresAppUser, PostgresAppPassword}}},
	query.ClickHouse: {title: "ClickHouse", users: map[Role][2]string{
		Reader: {ClickHouseReaderUser, ClickHouseReaderPassword}}},
}

// Engines are the database engines labdir resolves, in a stable order.
var Engines = []string{query.MySQL, query.Postgres, query.ClickHouse}

// Title is the engine's name in messages ("MySQL").
func Title(engine string) string {
	if e, ok := engines[engine]; ok {
		return e.title
	}
	return engine
}

// Endpoints are the lab's services on 127.0.0.1 at the ports of lab.json,
// as the read-only users of .env (environ's variables of the same names
// first; nil for .env alone). A service the stack lacks is left empty.
func (l *Lab) Endpoints(environ []string) Endpoints {
	e, _ := l.ResolveEndpoints(environ, Overrides{})
	return e
}

// ResolveEndpoints are the lab's endpoints (as Endpoints) with a
// command's flags applied. This is the one place that reads --mysql,
// --clickhouse and the rest; an unreadable value is an error naming the
// flag, without its password.
func (l *Lab) ResolveEndpoints(environ []string, o Overrides) (Endpoints, error) {
	e := Endpoints{DB: map[string]query.Endpoint{}, Missing: map[string]string{}}
	for _, engine := range Engines {
		ep, ok := l.Endpoint(engine, Reader, environ)
		flag := o.DB[engine]
		switch {
		case flag != "":
			var err error
			if ep, err = ParseEndpoint(engine, flag, ep); err != nil {
				return e, fmt.Errorf("--%s %w", engine, err)
			}
		case !ok:
			e.Missing[engine] = fmt.Sprintf("the lab's stack has no %s and --%s was not given", engine, engine)
			continue
		}
		if ep.User == "" {
			e.Missing[engine] = "no " + engines[engine].users[Reader][0] + " in " + l.EnvPath() + " or the environment"
			continue
		}
		e.DB[engine] = ep
	}
	s := l.Lab.Stack
	switch {
	case o.Kafka != "":
		e.Kafka = strings.Split(o.Kafka, ",")
	case s.Kafka != nil:
		e.Kafka = []string{local(s.Kafka.Port, 9092)}
	}
	if s.Flink != nil {
		e.Flink = "http://" + local(s.Flink.UIPort, 8081)
		e.Gateway = "http://" + local(s.Flink.GatewayPort, 8083)
	}
	if o.Flink != "" {
		e.Flink = strings.TrimRight(o.Flink, "/")
	}
	if o.Gateway != "" {
		e.Gateway = strings.TrimRight(o.Gateway, "/")
	}
	return e, nil
}

// Unavailable is the error of a command that needs engine's endpoint
// when there is none.
func (e Endpoints) Unavailable(engine string) error {
	why := e.Missing[engine]
	if why == "" {
		why = fmt.Sprintf("the lab's stack has no %s and --%s was not given", engine, engine)
	}
	return fmt.Errorf("no %s to query: %s", Title(engine), why)
}

// Endpoint is the lab's engine on 127.0.0.1 at its port, with its
// database, as role's user and password from .env (environ first). ok is
// false when the stack has no such engine; the user and password are set
// all the same.
func (l *Lab) Endpoint(engine string, role Role, environ []string) (ep query.Endpoint, ok bool) {
	ep.Engine = engine
	if keys, has := engines[engine].users[role]; has {
		ep.User, ep.Password = l.Getenv(environ, keys[0]), l.Getenv(environ, keys[1])
	}
	s := l.Lab.Stack
	switch engine {
	case query.MySQL:
		if m := s.MySQL; m != nil {
			ep.Addr, ep.Database, ok = local(m.Port, 3306), m.Database, true
		}
	case query.Postgres:
		if p := s.Postgres; p != nil {
			ep.Addr, ep.Database, ok = local(p.Port, 5432), p.Database, true
		}
	case query.ClickHouse:
		if c := s.ClickHouse; c != nil {
			ep.Addr, ep.Database, ok = local(c.TCPPort, 9000), c.Database, true
			// The native stack's ClickHouse (chdb behind an HTTP front)
			// has no native-protocol port.
			if l.Native() {
				ep.Addr, ep.Protocol = local(c.HTTPPort, 8123), query.ClickHouseHTTP
			}
		}
	}
	return ep, ok
}

// ConsoleAddr is where the lab's query console listens on 127.0.0.1.
func (l *Lab) ConsoleAddr() string {
	port := 0
	if c := l.Lab.Stack.Console; c != nil {
		port = c.Port
	}
	return local(port, 8088)
}

// local is 127.0.0.1:port, or :def when port is not set.
func local(port, def int) string {
	if port <= 0 {
		port = def
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// schemes are the URL schemes of each engine, with the protocol they
// choose and their default port.
var schemes = map[string]map[string]struct {
	protocol string
	port     string
}{
	query.MySQL:    {"mysql": {"", "3306"}},
	query.Postgres: {"postgres": {"", "5432"}, "postgresql": {"", "5432"}},
	query.ClickHouse: {
		"clickhouse": {query.ClickHouseNative, "9000"},
		"http":       {query.ClickHouseHTTP, "8123"},
		"https":      {query.ClickHouseHTTP, "8443"},
	},
}

// wants says which forms an engine's flag takes.
var wants = map[string]string{
	query.MySQL:      "want HOST:PORT, mysql://USER:PASSWORD@HOST:PORT/DATABASE or a DSN (USER:PASSWORD@tcp(HOST:PORT)/DATABASE)",
	query.Postgres:   "want HOST:PORT or postgres://USER:PASSWORD@HOST:PORT/DATABASE",
	query.ClickHouse: "want HOST:PORT, clickhouse://USER:PASSWORD@HOST:PORT/DATABASE or http://USER:PASSWORD@HOST:8123/DATABASE",
}

// ParseEndpoint reads a --mysql, --postgres or --clickhouse value over def: host:port
// (only the address changes), a URL (mysql://, postgres://, clickhouse:// for
// ClickHouse's native protocol, http(s):// for its HTTP interface), or for
// MySQL a go-sql-driver DSN. What the value says wins; what it leaves out
// (user, password, database) is def's. Errors never show the password
// and leave naming the flag to the caller.
func ParseEndpoint(engine, s string, def query.Endpoint) (query.Endpoint, error) {
	ep := def
	ep.Engine = engine
	bad := func() (query.Endpoint, error) {
		return def, fmt.Errorf("%q: %s", hidePassword(s), wants[engine])
	}
	switch {
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil {
			return bad()
		}
		sc, ok := schemes[engine][u.Scheme]
		if !ok || u.Host == "" {
			return bad()
		}
		ep.Addr, ep.Protocol, ep.Secure = u.Host, sc.protocol, u.Scheme == "https"
		if u.Port() == "" {
			ep.Addr = net.JoinHostPort(u.Hostname(), sc.port)
		}
		if u.User != nil {
			ep.User = u.User.Username()
			ep.Password, _ = u.User.Password()
		}
		if db := strings.Trim(u.Path, "/"); db != "" {
			ep.Database = db
		}
		if u.RawQuery != "" {
			ep.Params = u.RawQuery
		}
	case engine == query.MySQL && strings.ContainsAny(s, "@/("):
		cfg, err := mysql.ParseDSN(s)
		if err != nil {
			return def, fmt.Errorf("invalid MySQL DSN: %v (%s)", err, wants[engine])
		}
		if cfg.Net != "tcp" || cfg.Addr == "" {
			return bad()
		}
		ep.Addr = cfg.Addr
		if cfg.User != "" {
			ep.User, ep.Password = cfg.User, cfg.Passwd
		}
		if cfg.DBName != "" {
			ep.Database = cfg.DBName
		}
		// The parameters as written: the driver reads them again on Open.
		if i := strings.LastIndex(s, "/"); i >= 0 {
			if _, q, ok := strings.Cut(s[i:], "?"); ok {
				ep.Params = q
			}
		}
	default:
		if _, _, err := net.SplitHostPort(s); err != nil {
			return bad()
		}
		ep.Addr = s
	}
	if _, ok := schemes[engine]; !ok {
		return def, fmt.Errorf("no database engine %q", engine)
	}
	return ep, nil
}

// hidePassword hides a URL's password in an error message.
func hidePassword(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return strings.Replace(u.String(), "xxxxx", "****", 1)
		}
	}
	if i := strings.LastIndex(s, "@"); i >= 0 && !strings.Contains(s, "://") {
		// A DSN: user:password@…
		if j := strings.Index(s[:i], ":"); j >= 0 {
			return s[:j] + ":****" + s[i:]
		}
	}
	return s
}
