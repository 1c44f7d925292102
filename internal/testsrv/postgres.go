package testsrv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/proc"
	"github.com/labgen/labgen/internal/testproc"
)

// PostgresServer is a running PostgreSQL with wal_level=logical, like a
// CDC source. The superuser postgres needs no password (trust).
type PostgresServer struct {
	host  string
	port  int
	admin *sql.DB // postgres on database postgres, for NewDatabase
	dir   string
}

var sharedPostgres testproc.Shared[PostgresServer]

// Postgres returns the test binary's PostgreSQL server, starting it on
// first use. It skips or fails t when Debian's postgresql is missing, as
// LABGEN_TEST_SERVERS says, and fails t when the server does not start.
// The server is stopped by Main.
func Postgres(t testing.TB) *PostgresServer {
	t.Helper()
	bins := postgresBinaries(t)
	srv, err := sharedPostgres.Get(&servers, func() (*PostgresServer, func() error, error) {
		return startPostgres(bins[0], bins[1])
	})
	if err != nil {
		t.Fatalf("testsrv: PostgreSQL: %v", err)
	}
	return srv
}

// postgresBinaries finds postgres and initdb: Debian keeps them out of
// PATH, under /usr/lib/postgresql/VERSION/bin (the newest is taken).
func postgresBinaries(t testing.TB) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		pg, ini := filepath.Join(d, "postgres"), filepath.Join(d, "initdb")
		if isExec(pg) && isExec(ini) {
			binaries(t, "postgresql") // the mode and TestMain checks
			return []string{pg, ini}
		}
	}
	// Not in Debian's place: PATH, or missing (binaries ends t).
	return binaries(t, "postgresql", "postgres", "initdb")
}

func pgVersion(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// Addr is host:port.
func (s *PostgresServer) Addr() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// Port is the server's TCP port.
func (s *PostgresServer) Port() int { return s.port }

// URL is a postgres:// URL for user on database ("" for user's own).
func (s *PostgresServer) URL(user, password, database string) string {
	return postgresURL(s.Addr(), user, password, database)
}

func postgresURL(addr, user, password, database string) string {
	u := url.URL{Scheme: "postgres", Host: addr, Path: "/" + database, RawQuery: "sslmode=disable"}
	u.User = url.UserPassword(user, password)
	if password == "" {
		u.User = url.User(user)
	}
	return u.String()
}

// NewDatabase creates an empty database for t, dropped when t ends, and
// returns its name and a superuser URL that selects it.
func (s *PostgresServer) NewDatabase(t testing.TB) (name, dsn string) {
	t.Helper()
	name = dbName(t)
	s.exec(t, `CREATE DATABASE "`+name+`" ENCODING 'UTF8' TEMPLATE template0`)
	// WITH (FORCE): a test's pool may still hold a connection.
	t.Cleanup(func() { s.execCleanup(t, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`) })
	return name, s.URL("postgres", "", name)
}

// NewUser creates a login role with a password, dropped when t ends (with
// what it owns and its grants in database). Grant it rights with Exec on
// the database.
func (s *PostgresServer) NewUser(t testing.TB, database string) (user, password string) {
	t.Helper()
	user = fmt.Sprintf("u%d_%s", dbSeq.Add(1), randHex(4))
	password = randHex(12)
	s.exec(t, `CREATE ROLE "`+user+`" LOGIN PASSWORD '`+password+`'`)
	t.Cleanup(func() {
		// The database may be dropped already (cleanups run in reverse).
		s.execIn(database, `DROP OWNED BY "`+user+`"`)
		s.execCleanup(t, `DROP ROLE IF EXISTS "`+user+`"`)
	})
	return user, password
}

// Exec runs statements as the superuser in database.
func (s *PostgresServer) Exec(t testing.TB, database string, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if err := s.execIn(database, q); err != nil {
			t.Fatalf("testsrv: PostgreSQL: %s: %v", q, err)
		}
	}
}

func (s *PostgresServer) execIn(database, query string) error {
	cfg, err := pgx.ParseConfig(s.URL("postgres", "", database))
	if err != nil {
		return err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, query)
	return err
}

func (s *PostgresServer) exec(t testing.TB, query string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.admin.ExecContext(ctx, query); err != nil {
		t.Fatalf("testsrv: PostgreSQL: %s: %v", query, err)
	}
}

func (s *PostgresServer) execCleanup(t testing.TB, query string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.admin.ExecContext(ctx, query); err != nil {
		t.Errorf("testsrv: PostgreSQL cleanup: %s: %v", query, err)
	}
}

// postgresUser is whom initdb and postgres run as: both refuse root, so
// as root they run as Debian's postgres user (or nobody).
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root, and there is no postgres or nobody user to run PostgreSQL as")
}

func asUser(cmd *exec.Cmd, cred *syscall.Credential) {
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
}

// startPostgres initialises a cluster in a temporary directory and starts
// postgres on a free port. The returned stop function kills the server
// and removes its directory.
func startPostgres(postgres, initdb string) (*PostgresServer, func() error, error) {
	deadline := time.Now().Add(startTimeout)
	dir, cred, err := initPostgres(initdb, deadline)
	if err != nil {
		return nil, nil, err
	}
	srv, p, err := proc.RetryPorts(func() (*PostgresServer, *proc.Proc, error) {
		return runPostgresOnce(postgres, dir, cred, deadline)
	})
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	srv.dir = dir.Path
	stop := func() error {
		srv.admin.Close()
		return errors.Join(p.Stop(), dir.Remove())
	}
	return srv, stop, nil
}

// initPostgres creates a cluster in a new temporary directory, owned by
// the user postgres runs as.
func initPostgres(initdb string, deadline time.Time) (*proc.Dir, *syscall.Credential, error) {
	cred, err := postgresUser()
	if err != nil {
		return nil, nil, err
	}
	dir, err := proc.NewDir(dirPrefix, "postgres")
	if err != nil {
		return nil, nil, err
	}
	if cred != nil {
		if err := os.Chown(dir.Path, int(cred.Uid), int(cred.Gid)); err != nil {
			dir.Remove()
			return nil, nil, err
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	// trust: the server listens on 127.0.0.1 only and lives for one test
	// binary. --no-sync: the data is thrown away.
	cmd := exec.CommandContext(ctx, initdb, "-D", dir.Join("data"), "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	asUser(cmd, cred)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	cancel()
	if err != nil {
		dir.Remove()
		return nil, nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return dir, cred, nil
}

// runPostgresOnce starts postgres on the cluster in dir on a free port;
// settings (-c name=value) override the defaults.
func runPostgresOnce(postgres string, dir *proc.Dir, cred *syscall.Credential, deadline time.Time, settings ...string) (*PostgresServer, *proc.Proc, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(postgres, "-D", dir.Join("data"),
		"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-k", dir.Path,
		// A realistic CDC source: logical decoding (pgoutput).
		"-c", "wal_level=logical", "-c", "max_replication_slots=4", "-c", "max_wal_senders=4",
		"-c", "TimeZone=UTC",
		// Durability is pointless for throwaway data and costs fsyncs.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "logging_collector=off")
	for _, kv := range settings {
		cmd.Args = append(cmd.Args, "-c", kv)
	}
	cmd.Dir = dir.Path
	asUser(cmd, cred)
	p, err := proc.StartProc("postgres", cmd, dir.Join("postgres.out"), "")
	if err != nil {
		return nil, nil, err
	}
	cfg, err := pgx.ParseConfig(postgresURL(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "postgres", "", "postgres"))
	if err != nil {
		p.Stop()
		return nil, p, err
	}
	cfg.ConnectTimeout = time.Second
	admin := stdlib.OpenDB(*cfg)
	admin.SetMaxIdleConns(2)
	if err := p.WaitReady(deadline, pace, admin.PingContext); err != nil {
		admin.Close()
		p.Stop()
		return nil, p, err
	}
	return &PostgresServer{host: "127.0.0.1", port: port, admin: admin}, p, nil
}
