package runner

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// Lab is a rendered lab directory as the runtime reads it: lab.json and
// .env, nothing else of the source.
type Lab struct {
	Dir  string
	Lab  *schemas.Lab
	JSON []byte
	// Env is .env (empty when the file is missing).
	Env map[string]string
}

// Hash is "sha256:" + the hex sha256 of lab.json.
func (l *Lab) Hash() string {
	s := sha256.Sum256(l.JSON)
	return "sha256:" + hex.EncodeToString(s[:])
}

// LoadLab reads a rendered lab directory.
func LoadLab(dir string) (*Lab, error) {
	p := filepath.Join(dir, "lab.json")
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s has no lab.json; render the lab first (labgen render LAB_DIR -o %s)", dir, dir)
		}
		return nil, err
	}
	lab, err := schemas.ReadLabJSON(p)
	if err != nil {
		return nil, err
	}
	env, err := ReadEnv(filepath.Join(dir, ".env"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if env == nil {
		env = map[string]string{}
	}
	return &Lab{Dir: dir, Lab: lab, JSON: b, Env: env}, nil
}

// ReadEnv reads a .env file: KEY=VALUE lines, # comments, values optionally
// in single or double quotes.
func ReadEnv(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not KEY=VALUE", path, n)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		env[k] = v
	}
	return env, sc.Err()
}

// Secrets are the .env values whose keys name secrets.
func (l *Lab) Secrets() []string {
	var out []string
	for k, v := range l.Env {
		if isSecretKey(k) {
			out = append(out, v)
		}
	}
	return out
}

func isSecretKey(k string) bool {
	k = strings.ToUpper(k)
	return strings.Contains(k, "PASSWORD") || strings.Contains(k, "SECRET") || strings.Contains(k, "TOKEN")
}

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

// DefaultEndpoints are the lab's services on 127.0.0.1 at the ports of
// lab.json, as the .env's read-only users.
func DefaultEndpoints(l *Lab) Endpoints {
	var e Endpoints
	s := l.Lab.Stack
	local := func(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
	if s.MySQL != nil {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd = l.Env["MYSQL_READER_USER"], l.Env["MYSQL_READER_PASSWORD"]
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", local(orPort(s.MySQL.Port, 3306)), s.MySQL.Database
		e.MySQL = cfg.FormatDSN()
	}
	if s.ClickHouse != nil {
		e.ClickHouse = query.ClickHouseOptions{Addr: local(orPort(s.ClickHouse.TCPPort, 9000)), Database: s.ClickHouse.Database,
			User: l.Env["CLICKHOUSE_READER_USER"], Password: l.Env["CLICKHOUSE_READER_PASSWORD"]}
	}
	if s.Kafka != nil {
		e.Kafka = []string{local(orPort(s.Kafka.Port, 9092))}
	}
	if s.Flink != nil {
		e.Flink = "http://" + local(orPort(s.Flink.UIPort, 8081))
		e.Gateway = "http://" + local(orPort(s.Flink.GatewayPort, 8083))
	}
	return e
}

func orPort(p, def int) int {
	if p > 0 {
		return p
	}
	return def
}

// ParseClickHouse reads --clickhouse: host:port (keeping the default
// user, password and database) or clickhouse://user:password@host:port/db.
func ParseClickHouse(s string, def query.ClickHouseOptions) (query.ClickHouseOptions, error) {
	if !strings.Contains(s, "://") {
		if _, _, err := net.SplitHostPort(s); err != nil {
			return def, fmt.Errorf("--clickhouse %q: want HOST:PORT or clickhouse://USER:PASSWORD@HOST:PORT/DATABASE", s)
		}
		def.Addr = s
		return def, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "clickhouse" || u.Host == "" {
		return def, fmt.Errorf("--clickhouse %q: want HOST:PORT or clickhouse://USER:PASSWORD@HOST:PORT/DATABASE", hidePassword(s))
	}
	o := def
	o.Addr = u.Host
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

// ClickHouseAddress shows ClickHouse options for the record.
func ClickHouseAddress(o query.ClickHouseOptions) string {
	s := o.Addr
	if o.User != "" {
		s = o.User + "@" + s
	}
	if o.Database != "" {
		s += "/" + o.Database
	}
	return s
}
