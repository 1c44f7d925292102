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

// Endpoints say where the lab's services are. Empty means not used.
type Endpoints struct {
	// MySQL is a go-sql-driver DSN.
	MySQL string
	// ClickHouse is the native protocol's address and the user to connect
	// as.
	ClickHouse query.ClickHouseOptions
	Kafka      []string
	Flink      string
	Gateway    string
}

// Endpoints are the lab's services on 127.0.0.1 at the ports of lab.json,
// as the read-only users of .env (environ's variables of the same names
// first; nil for .env alone). A service the stack lacks is left empty.
func (l *Lab) Endpoints(environ []string) Endpoints {
	var e Endpoints
	s := l.Lab.Stack
	if s.MySQL != nil {
		e.MySQL = l.MySQLConfig(MySQLReaderUser, MySQLReaderPassword, environ).FormatDSN()
	}
	if s.ClickHouse != nil {
		e.ClickHouse = l.ClickHouseReader(environ)
	}
	if s.Kafka != nil {
		e.Kafka = []string{local(s.Kafka.Port, 9092)}
	}
	if s.Flink != nil {
		e.Flink = "http://" + local(s.Flink.UIPort, 8081)
		e.Gateway = "http://" + local(s.Flink.GatewayPort, 8083)
	}
	return e
}

// MySQLConfig is the lab's MySQL on 127.0.0.1 at its port, with its
// database, as the user and password that .env (after environ) has under
// userKey and passwordKey. When the stack has no MySQL, only the user and
// password are set.
func (l *Lab) MySQLConfig(userKey, passwordKey string, environ []string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.User, cfg.Passwd = l.Getenv(environ, userKey), l.Getenv(environ, passwordKey)
	if m := l.Lab.Stack.MySQL; m != nil {
		cfg.Addr, cfg.DBName = l.MySQLAddr(), m.Database
	}
	return cfg
}

// MySQLAddr is where the lab's MySQL listens on 127.0.0.1 ("" when the
// stack has none).
func (l *Lab) MySQLAddr() string {
	if m := l.Lab.Stack.MySQL; m != nil {
		return local(m.Port, 3306)
	}
	return ""
}

// ClickHouseReader is the lab's ClickHouse on 127.0.0.1 at its native
// port, with its database, as .env's read-only user (after environ). When
// the stack has no ClickHouse, only the user and password are set.
func (l *Lab) ClickHouseReader(environ []string) query.ClickHouseOptions {
	o := query.ClickHouseOptions{User: l.Getenv(environ, ClickHouseReaderUser), Password: l.Getenv(environ, ClickHouseReaderPassword)}
	if c := l.Lab.Stack.ClickHouse; c != nil {
		o.Addr, o.Database = local(c.TCPPort, 9000), c.Database
		// The native stack's ClickHouse (chdb behind an HTTP front) has
		// no native-protocol port.
		if l.Native() {
			o.Addr, o.Protocol = local(c.HTTPPort, 8123), query.ClickHouseHTTP
		}
	}
	return o
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

// ParseClickHouse reads --clickhouse: host:port (keeping the default
// protocol, user, password and database), clickhouse://user:password@host:port/db
// (native protocol) or http(s)://user:password@host:port/db (HTTP interface).
func ParseClickHouse(s string, def query.ClickHouseOptions) (query.ClickHouseOptions, error) {
	const want = "want HOST:PORT, clickhouse://USER:PASSWORD@HOST:PORT/DATABASE or http://USER:PASSWORD@HOST:8123/DATABASE"
	if !strings.Contains(s, "://") {
		if _, _, err := net.SplitHostPort(s); err != nil {
			return def, fmt.Errorf("--clickhouse %q: %s", s, want)
		}
		def.Addr = s
		return def, nil
	}
	u, err := url.Parse(s)
	protocol := map[string]string{"clickhouse": query.ClickHouseNative, "http": query.ClickHouseHTTP, "https": query.ClickHouseHTTP}
	if err != nil || protocol[u.Scheme] == "" || u.Host == "" {
		return def, fmt.Errorf("--clickhouse %q: %s", hidePassword(s), want)
	}
	o := def
	o.Addr, o.Protocol, o.Secure = u.Host, protocol[u.Scheme], u.Scheme == "https"
	if u.Port() == "" && o.Protocol == query.ClickHouseHTTP {
		o.Addr = net.JoinHostPort(u.Hostname(), map[bool]string{false: "8123", true: "8443"}[o.Secure])
	}
	if u.User != nil {
		o.User = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		o.Database = db
	}
	return o, nil
}

// hidePassword hides a URL's password in an error message.
func hidePassword(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return strings.Replace(u.String(), "xxxxx", "****", 1)
		}
	}
	return s
}
