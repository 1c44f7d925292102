package testsrv

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

// ClickHouseReadOnlyUser is a ClickHouse user without password whose profile
// has readonly=1: it may SELECT but not write, create, or change settings.
const ClickHouseReadOnlyUser = "readonly"

// ClickHouseServer is a running clickhouse-server. The user "default" has no
// password and full rights; see also ClickHouseReadOnlyUser.
type ClickHouseServer struct {
	host     string
	tcpPort  int
	httpPort int
	client   *http.Client
	pid      int // for tests of the package itself
	dir      string
}

var sharedClickHouse testproc.Shared[ClickHouseServer]

// ClickHouse returns the test binary's ClickHouse server, starting it on
// first use. It skips or fails t when clickhouse-server is missing, as
// LABGEN_TEST_SERVERS says, and fails t when the server does not start. The
// server is stopped by Main.
func ClickHouse(t testing.TB) *ClickHouseServer {
	t.Helper()
	bins := binaries(t, "clickhouse-server", "clickhouse-server")
	srv, err := sharedClickHouse.Get(&servers, func() (*ClickHouseServer, func() error, error) {
		return startClickHouse(bins[0])
	})
	if err != nil {
		t.Fatalf("testsrv: ClickHouse: %v", err)
	}
	return srv
}

// Host is the address the server listens on (127.0.0.1).
func (s *ClickHouseServer) Host() string { return s.host }

// NativeAddr is host:port of the native protocol (clickhouse-go, ch-go).
func (s *ClickHouseServer) NativeAddr() string {
	return net.JoinHostPort(s.host, strconv.Itoa(s.tcpPort))
}

// HTTPURL is the base URL of the HTTP interface, without a trailing slash.
func (s *ClickHouseServer) HTTPURL() string {
	return "http://" + net.JoinHostPort(s.host, strconv.Itoa(s.httpPort))
}

// DSN is a clickhouse-go v2 DSN (native protocol) for user ("" = default)
// on database ("" = default).
func (s *ClickHouseServer) DSN(user, database string) string {
	u := url.URL{Scheme: "clickhouse", Host: s.NativeAddr(), Path: "/" + database}
	if user != "" {
		u.User = url.User(user)
	}
	return u.String()
}

// NewDatabase creates an empty database for t, dropped when t ends, and
// returns its name and a clickhouse-go v2 DSN for the default user that
// selects it.
func (s *ClickHouseServer) NewDatabase(t testing.TB) (name, dsn string) {
	t.Helper()
	name = dbName(t)
	s.Exec(t, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := s.Query(ctx, "", "", "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("testsrv: ClickHouse cleanup: %v", err)
		}
	})
	return name, s.DSN("", name)
}

// Exec runs query over HTTP as the default user in database "default" and
// returns the response body (the result in TabSeparated unless the query
// says FORMAT …). It fails t on error. Unlike clickhouse-go against this
// server, it handles INSERT … VALUES.
func (s *ClickHouseServer) Exec(t testing.TB, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := s.Query(ctx, "", "", query)
	if err != nil {
		t.Fatalf("testsrv: ClickHouse: %v", err)
	}
	return out
}

// Query runs query over HTTP as user ("" = default) in database ("" =
// default) and returns the response body. A server-side error is returned
// with the server's message.
func (s *ClickHouseServer) Query(ctx context.Context, user, database, query string) (string, error) {
	params := url.Values{}
	if user != "" {
		params.Set("user", user)
	}
	if database != "" {
		params.Set("database", database)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.HTTPURL()+"/?"+params.Encode(), strings.NewReader(query))
	if err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", abbrev(query), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("%s: read response: %w", abbrev(query), err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d: %s", abbrev(query), resp.StatusCode, bytes.TrimSpace(body))
	}
	return string(body), nil
}

func abbrev(query string) string {
	query = strings.Join(strings.Fields(query), " ")
	if len(query) > 200 {
		query = query[:200] + "…"
	}
	return query
}

// startClickHouse writes a config into a fresh directory and starts
// clickhouse-server on free ports. The returned stop function kills the
// server and removes its directory.
func startClickHouse(bin string) (*ClickHouseServer, func() error, error) {
	deadline := time.Now().Add(startTimeout)
	dir, err := proc.NewDir(dirPrefix, "clickhouse")
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(dir.Join("users.xml"), []byte(clickHouseUsers), 0o600); err != nil {
		dir.Remove()
		return nil, nil, err
	}
	srv, p, err := proc.RetryPorts(func() (*ClickHouseServer, *proc.Proc, error) {
		return runClickHouse(bin, dir, deadline)
	})
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	srv.pid, srv.dir = p.Pid(), dir.Path
	return srv, func() error { return errors.Join(p.Stop(), dir.Remove()) }, nil
}

func runClickHouse(bin string, dir *proc.Dir, deadline time.Time) (*ClickHouseServer, *proc.Proc, error) {
	tcpPort, err := proc.FreePort()
	if err != nil {
		return nil, nil, err
	}
	httpPort, err := proc.FreePort()
	if err != nil {
		return nil, nil, err
	}
	logPath, errLogPath := dir.Join("server.log"), dir.Join("server.err.log")
	// A previous attempt's "address in use" must not count again.
	os.Remove(logPath)
	os.Remove(errLogPath)
	cfg := clickHouseConfig(dir, tcpPort, httpPort, logPath, errLogPath)
	if err := os.WriteFile(dir.Join("config.xml"), []byte(cfg), 0o600); err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, "--config-file="+dir.Join("config.xml"))
	cmd.Dir = dir.Path
	p, err := proc.StartProc("clickhouse-server", cmd, dir.Join("server.out"), errLogPath)
	if err != nil {
		return nil, nil, err
	}
	srv := &ClickHouseServer{
		host:     "127.0.0.1",
		tcpPort:  tcpPort,
		httpPort: httpPort,
		client:   &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}},
	}
	// /ping answers once the HTTP listener is up; the native listener is set
	// up in the same step, but dial it too rather than rely on that.
	probe := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.HTTPURL()+"/ping", nil)
		if err != nil {
			return err
		}
		resp, err := srv.client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/ping: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
		}
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", srv.NativeAddr())
		if err != nil {
			return err
		}
		return c.Close()
	}
	if err := p.WaitReady(deadline, pace, probe); err != nil {
		p.Stop()
		return nil, p, err
	}
	return srv, p, nil
}

// clickHouseConfig is the server config. 18.16 reads <yandex> as the root
// element (current versions also accept <clickhouse>). Everything the server
// writes goes under dir; nothing in /etc/clickhouse-server is read.
func clickHouseConfig(dir *proc.Dir, tcpPort, httpPort int, logPath, errLogPath string) string {
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	return fmt.Sprintf(`<?xml version="1.0"?>
<yandex>
    <logger>
        <level>information</level>
        <log>%s</log>
        <errorlog>%s</errorlog>
        <console>0</console>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <tcp_port>%d</tcp_port>
    <http_port>%d</http_port>
    <path>%s/</path>
    <tmp_path>%s/</tmp_path>
    <user_files_path>%s/</user_files_path>
    <format_schema_path>%s/</format_schema_path>
    <users_config>%s</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <!-- Fixed, so DateTime results do not depend on the machine. -->
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <!-- Caches are allocated on demand; small caps keep a test server small. -->
    <mark_cache_size>268435456</mark_cache_size>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
</yandex>
`, esc(logPath), esc(errLogPath), tcpPort, httpPort,
		esc(dir.Join("data")), esc(dir.Join("tmp")), esc(dir.Join("user_files")),
		esc(dir.Join("format_schemas")), esc(dir.Join("users.xml")))
}

// clickHouseUsers mirrors the stock Debian users.xml, limited to loopback.
const clickHouseUsers = `<?xml version="1.0"?>
<yandex>
    <profiles>
        <default></default>
        <readonly>
            <readonly>1</readonly>
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <readonly>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>readonly</profile>
            <quota>default</quota>
        </readonly>
    </users>
    <quotas>
        <default></default>
    </quotas>
</yandex>
`
