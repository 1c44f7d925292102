package testsrv

import (
	"errors"
	"net"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/proc"
)

// OwnedPostgres is a PostgreSQL server that belongs to one test, for tests
// that crash or restart it, as OwnedMariaDB is for MariaDB: clients
// connect through a forwarder whose address stays the same across
// restarts, Kill drops every connection, and while the server is down new
// connections are closed at once.
//
// Unlike the shared server it commits synchronously: a transaction the
// server acknowledged must survive the crash the test causes (fsync stays
// off, since only the process dies, not the machine).
type OwnedPostgres struct {
	*PostgresServer // through the forwarder

	bin  string
	dir  *proc.Dir
	cred *syscall.Credential
	fwd  *forwarder

	mu   sync.Mutex
	proc *proc.Proc // nil while down
}

// ownedSettings make acknowledged commits survive a crash of the server.
var ownedSettings = []string{"synchronous_commit=on"}

// OwnPostgres starts a PostgreSQL server for t alone. It skips or fails t
// like Postgres when PostgreSQL is missing.
func OwnPostgres(t testing.TB) *OwnedPostgres {
	t.Helper()
	bins := postgresBinaries(t)
	deadline := time.Now().Add(startTimeout)
	dir, cred, err := initPostgres(bins[1], deadline)
	if err != nil {
		t.Fatalf("testsrv: PostgreSQL: %v", err)
	}
	srv, p, err := proc.RetryPorts(func() (*PostgresServer, *proc.Proc, error) {
		return runPostgresOnce(bins[0], dir, cred, deadline, ownedSettings...)
	})
	if err != nil {
		dir.Remove()
		t.Fatalf("testsrv: PostgreSQL: %v", err)
	}
	srv.admin.Close() // the owned server's admin goes through the forwarder
	fwd, err := newForwarder(srv.Addr())
	if err != nil {
		p.Stop()
		dir.Remove()
		t.Fatalf("testsrv: PostgreSQL forwarder: %v", err)
	}
	o := &OwnedPostgres{bin: bins[0], dir: dir, cred: cred, fwd: fwd, proc: p}
	host, port, _ := net.SplitHostPort(fwd.addr())
	n, _ := strconv.Atoi(port)
	o.PostgresServer = &PostgresServer{host: host, port: n, dir: dir.Path}
	cfg, err := pgx.ParseConfig(o.URL("postgres", "", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnectTimeout = 5 * time.Second
	o.admin = stdlib.OpenDB(*cfg)
	t.Cleanup(func() {
		o.admin.Close()
		o.fwd.close()
		o.mu.Lock()
		defer o.mu.Unlock()
		var errs []error
		if o.proc != nil {
			errs = append(errs, o.proc.Stop())
		}
		errs = append(errs, o.dir.Remove())
		if err := errors.Join(errs...); err != nil {
			t.Errorf("testsrv: stopping PostgreSQL: %v", err)
		}
	})
	return o
}

// Kill crashes the server (SIGKILL to postgres and its backends) and
// waits until it is gone.
func (o *OwnedPostgres) Kill(t testing.TB) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc == nil {
		t.Fatal("testsrv: PostgreSQL is already down")
	}
	o.fwd.setBackend("")
	if err := o.proc.Stop(); err != nil {
		t.Fatalf("testsrv: kill PostgreSQL: %v", err)
	}
	o.proc = nil
}

// Start starts the server again on the same data after Kill (PostgreSQL
// recovers from its WAL) and waits until it accepts connections.
func (o *OwnedPostgres) Start(t testing.TB) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc != nil {
		t.Fatal("testsrv: PostgreSQL is already running")
	}
	deadline := time.Now().Add(startTimeout)
	var srv *PostgresServer
	var p *proc.Proc
	var err error
	for {
		// The killed backends may hold the shared memory a moment longer
		// than their postmaster lived: retry until the deadline.
		srv, p, err = proc.RetryPorts(func() (*PostgresServer, *proc.Proc, error) {
			return runPostgresOnce(o.bin, o.dir, o.cred, deadline, ownedSettings...)
		})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("testsrv: restart PostgreSQL: %v", err)
	}
	srv.admin.Close()
	o.proc = p
	o.fwd.setBackend(srv.Addr())
}
