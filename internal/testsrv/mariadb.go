package testsrv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

// MariaDBServer is a running mariadbd with binary logging on (ROW format,
// server-id 1), like a CDC source. Root has no password.
type MariaDBServer struct {
	host  string
	port  int
	admin *sql.DB // root connection for NewDatabase and NewUser
	pid   int     // for tests of the package itself
	dir   string
}

var sharedMariaDB testproc.Shared[MariaDBServer]

// MariaDB returns the test binary's MariaDB server, starting it on first use.
// It skips or fails t when mariadbd is missing, as LABGEN_TEST_SERVERS says,
// and fails t when the server does not start. The server is stopped by Main.
func MariaDB(t testing.TB) *MariaDBServer {
	t.Helper()
	bins := binaries(t, "mariadb-server", "mariadbd", "mariadb-install-db")
	srv, err := sharedMariaDB.Get(&servers, func() (*MariaDBServer, func() error, error) {
		return startMariaDB(bins[0], bins[1])
	})
	if err != nil {
		t.Fatalf("testsrv: MariaDB: %v", err)
	}
	return srv
}

// Host is the address the server listens on (127.0.0.1).
func (s *MariaDBServer) Host() string { return s.host }

// Port is the server's TCP port.
func (s *MariaDBServer) Port() int { return s.port }

// Addr is host:port.
func (s *MariaDBServer) Addr() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// RootDSN is a go-sql-driver/mysql DSN for root with no default database.
func (s *MariaDBServer) RootDSN() string { return s.DSN("root", "", "") }

// DSN is a go-sql-driver/mysql DSN for user on database ("" for none). It has
// no parameters; add them with mysql.ParseDSN if a test needs any.
func (s *MariaDBServer) DSN(user, password, database string) string {
	return mysqlDSN(s.Addr(), user, password, database)
}

func mysqlDSN(addr, user, password, database string) string {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = user, password
	cfg.Net, cfg.Addr = "tcp", addr
	cfg.DBName = database
	return cfg.FormatDSN()
}

// NewDatabase creates an empty database for t, dropped when t ends, and
// returns its name and a root DSN that selects it.
func (s *MariaDBServer) NewDatabase(t testing.TB) (name, dsn string) {
	t.Helper()
	name = dbName(t)
	s.exec(t, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4")
	t.Cleanup(func() { s.execCleanup(t, "DROP DATABASE IF EXISTS `"+name+"`") })
	return name, s.DSN("root", "", name)
}

// NewUser creates a user that may connect from anywhere, grants it each of
// grants, and drops it when t ends. A grant is what goes between GRANT and
// TO, e.g. "SELECT ON mydb.*" or "REPLICATION SLAVE, REPLICATION CLIENT ON *.*".
// Use DSN to connect as the user.
func (s *MariaDBServer) NewUser(t testing.TB, grants ...string) (user, password string) {
	t.Helper()
	user = fmt.Sprintf("u%d_%s", dbSeq.Add(1), randHex(4))
	password = randHex(12)
	account := "'" + user + "'@'%'"
	s.exec(t, "CREATE USER "+account+" IDENTIFIED BY '"+password+"'")
	t.Cleanup(func() { s.execCleanup(t, "DROP USER IF EXISTS "+account) })
	for _, g := range grants {
		s.exec(t, "GRANT "+g+" TO "+account)
	}
	return user, password
}

func (s *MariaDBServer) exec(t testing.TB, query string) {
	t.Helper()
	if err := s.execRoot(query); err != nil {
		t.Fatalf("testsrv: MariaDB: %s: %v", query, err)
	}
}

// execCleanup reports instead of fatal: cleanup functions must all run.
func (s *MariaDBServer) execCleanup(t testing.TB, query string) {
	t.Helper()
	if err := s.execRoot(query); err != nil {
		t.Errorf("testsrv: MariaDB cleanup: %s: %v", query, err)
	}
}

func (s *MariaDBServer) execRoot(query string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.admin.ExecContext(ctx, query)
	return err
}

// startMariaDB initialises a datadir and starts mariadbd on a free port. The
// returned stop function kills the server and removes its directory.
func startMariaDB(mariadbd, installDB string) (*MariaDBServer, func() error, error) {
	deadline := time.Now().Add(startTimeout)
	dir, err := proc.NewDir(dirPrefix, "mariadb")
	if err != nil {
		return nil, nil, err
	}
	datadir := dir.Join("data")

	// --no-defaults keeps /etc/mysql out, so the machine's config cannot leak
	// in. normal root authentication = root@127.0.0.1 with an empty password
	// over TCP, instead of unix_socket auth tied to the OS user.
	// Its own tmpdir: the bootstrap server's temporary tables in a shared
	// /tmp collided with other test binaries installing at the same time
	// ("Error on delete of '/tmp/#sql-temptable-…'").
	install := append([]string{
		"--no-defaults",
		"--datadir=" + datadir,
		"--tmpdir=" + dir.Path,
		"--auth-root-authentication-method=normal",
		"--skip-test-db",
		"--skip-name-resolve",
	}, innodbArgs...)
	install = append(install, userArg()...)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	cmd := exec.CommandContext(ctx, installDB, install...)
	// The script's bootstrap mariadbd may outlive a killed script and hold
	// the output pipe open; do not wait for it forever.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	cancel()
	if err != nil {
		dir.Remove()
		return nil, nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}

	srv, p, err := runMariaDB(mariadbd, dir, deadline)
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	srv.pid, srv.dir = p.Pid(), dir.Path
	stop := func() error {
		srv.admin.Close()
		return errors.Join(p.Stop(), dir.Remove())
	}
	return srv, stop, nil
}

// innodbArgs are the InnoDB settings of the datadir and of the server: small
// InnoDB files keep the datadir at ~25 MB instead of ~115 MB and make it
// faster to create.
var innodbArgs = []string{
	"--innodb-log-file-size=8M",
	"--innodb-buffer-pool-size=32M",
	// io_uring/libaio may be blocked by a container's seccomp profile.
	"--innodb-use-native-aio=0",
}

// runMariaDB starts mariadbd on an existing datadir and waits until root
// can connect, on another free port when another process took the first.
func runMariaDB(mariadbd string, dir *proc.Dir, deadline time.Time) (*MariaDBServer, *proc.Proc, error) {
	return proc.RetryPorts(func() (*MariaDBServer, *proc.Proc, error) {
		return runMariaDBOnce(mariadbd, dir, deadline)
	})
}

// runMariaDBOnce is one attempt of runMariaDB. On error the process (if
// any) has been stopped and is returned so the caller can look at its logs.
func runMariaDBOnce(mariadbd string, dir *proc.Dir, deadline time.Time) (*MariaDBServer, *proc.Proc, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, nil, err
	}
	logPath := dir.Join("error.log")
	os.Remove(logPath) // a previous attempt's "address in use" must not count again
	args := append([]string{
		"--no-defaults",
		"--datadir=" + dir.Join("data"),
		"--tmpdir=" + dir.Path,
		"--socket=" + dir.Join("mysqld.sock"),
		"--pid-file=" + dir.Join("mysqld.pid"),
		"--log-error=" + logPath,
		"--bind-address=127.0.0.1",
		"--port=" + strconv.Itoa(port),
		"--skip-name-resolve",
		// Realistic CDC source: row-based binlog, as Debezium requires.
		"--log-bin=" + dir.Join("data", "mysql-bin"),
		"--binlog-format=ROW",
		"--binlog-row-image=FULL",
		"--server-id=1",
		// Without /etc/mysql the Debian default (utf8mb4) is lost; put it back.
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_unicode_ci",
		// Durability is pointless for throwaway data and costs fsyncs.
		"--innodb-flush-log-at-trx-commit=2",
		"--sync-binlog=0",
	}, innodbArgs...)
	args = append(args, userArg()...)
	cmd := exec.Command(mariadbd, args...)
	cmd.Dir = dir.Path
	p, err := proc.StartProc("mariadbd", cmd, dir.Join("mariadbd.out"), logPath)
	if err != nil {
		return nil, nil, err
	}

	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg.Timeout = time.Second
	cfg.Logger = &mysql.NopLogger{} // refused connections while starting are expected
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		p.Stop()
		return nil, p, err
	}
	admin := sql.OpenDB(conn)
	admin.SetMaxIdleConns(2)
	if err := p.WaitReady(deadline, pace, admin.PingContext); err != nil {
		admin.Close()
		p.Stop()
		return nil, p, err
	}
	return &MariaDBServer{host: "127.0.0.1", port: port, admin: admin}, p, nil
}

// userArg lets mariadbd run as root, which it otherwise refuses; as any
// other user no flag is needed.
func userArg() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand documents it)
	return hex.EncodeToString(b)
}
