package testsrv

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/proc"
)

// OwnedMariaDB is a MariaDB server that belongs to one test, for tests
// that crash or restart the server (the shared one of MariaDB must never
// go away under other tests). It is started by OwnMariaDB and stopped,
// with its data directory removed, when the test ends.
//
// Clients connect through a forwarder whose address (Addr, DSN) stays the
// same across restarts, as a server restarted in place keeps its port:
// mariadbd itself gets a fresh free port on every start. While the server
// is down the forwarder accepts connections and closes them at once, and
// a Kill drops every forwarded connection, as the crash of a real server
// would.
type OwnedMariaDB struct {
	bin string
	dir string
	fwd *forwarder

	mu   sync.Mutex
	srv  *MariaDBServer // nil while down
	proc *proc.Proc     // the running process after a restart
	pid  int            // the first process, started by startMariaDB
}

// OwnMariaDB starts a MariaDB server for t alone. It skips or fails t like
// MariaDB when mariadbd is missing. Each one costs a few seconds and
// about 100 MB, so use it only where the server must go away.
func OwnMariaDB(t testing.TB) *OwnedMariaDB {
	t.Helper()
	bins := binaries(t, "mariadb-server", "mariadbd", "mariadb-install-db")
	srv, stop, err := startMariaDB(bins[0], bins[1])
	if err != nil {
		t.Fatalf("testsrv: MariaDB: %v", err)
	}
	o := &OwnedMariaDB{bin: bins[0], dir: srv.dir, srv: srv, pid: srv.pid}
	fwd, err := newForwarder(srv.Addr())
	if err != nil {
		stop()
		t.Fatalf("testsrv: MariaDB forwarder: %v", err)
	}
	o.fwd = fwd
	t.Cleanup(func() {
		o.fwd.close()
		o.mu.Lock()
		defer o.mu.Unlock()
		var errs []error
		if o.proc != nil {
			errs = append(errs, o.proc.Stop())
			if o.srv != nil {
				o.srv.admin.Close()
			}
		}
		// stop kills the first process (if still running), closes its
		// admin connection and removes the data directory.
		errs = append(errs, stop())
		if err := errors.Join(errs...); err != nil {
			t.Errorf("testsrv: stopping MariaDB: %v", err)
		}
	})
	return o
}

// Addr is the stable host:port clients connect to.
func (o *OwnedMariaDB) Addr() string { return o.fwd.addr() }

// DSN is a go-sql-driver/mysql DSN for user on database through Addr.
func (o *OwnedMariaDB) DSN(user, password, database string) string {
	return mysqlDSN(o.Addr(), user, password, database)
}

// NewDatabase creates an empty database and returns its name and a root
// DSN (through Addr) that selects it. It is removed with the server.
func (o *OwnedMariaDB) NewDatabase(t testing.TB) (name, dsn string) {
	t.Helper()
	name = dbName(t)
	o.Exec(t, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4")
	return name, o.DSN("root", "", name)
}

// Exec runs a statement as root; the server must be up.
func (o *OwnedMariaDB) Exec(t testing.TB, query string) {
	t.Helper()
	o.mu.Lock()
	srv := o.srv
	o.mu.Unlock()
	if srv == nil {
		t.Fatalf("testsrv: MariaDB is down (Kill without Start): %s", query)
	}
	srv.exec(t, query)
}

// Kill crashes the server with SIGKILL and waits until it is gone. Open
// connections break; new ones are closed at once until Start.
func (o *OwnedMariaDB) Kill(t testing.TB) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv == nil {
		t.Fatal("testsrv: MariaDB is already down")
	}
	o.fwd.setBackend("")
	if o.proc != nil {
		if err := o.proc.Stop(); err != nil {
			t.Fatalf("testsrv: kill MariaDB: %v", err)
		}
		o.proc = nil
	} else if err := killPid(o.pid); err != nil {
		t.Fatalf("testsrv: kill MariaDB: %v", err)
	}
	o.srv.admin.Close()
	o.srv = nil
}

// Start starts the server again on the same data after Kill, and waits
// until it accepts connections.
func (o *OwnedMariaDB) Start(t testing.TB) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv != nil {
		t.Fatal("testsrv: MariaDB is already running")
	}
	srv, p, err := runMariaDB(o.bin, &proc.Dir{Path: o.dir}, time.Now().Add(startTimeout))
	if err != nil {
		t.Fatalf("testsrv: restart MariaDB: %v", err)
	}
	o.srv, o.proc = srv, p
	o.fwd.setBackend(srv.Addr())
}

// Restart is Kill then Start.
func (o *OwnedMariaDB) Restart(t testing.TB) {
	t.Helper()
	o.Kill(t)
	o.Start(t)
}

// killPid kills the first server process, which startMariaDB started and
// whose *proc.Proc only its stop function holds, and waits until it is reaped.
func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	deadline := time.Now().Add(proc.StopTimeout)
	for time.Now().Before(deadline) {
		// StartProc's goroutine reaps the process; after that, signal 0
		// fails.
		if err := p.Signal(syscall.Signal(0)); err != nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("mariadbd (pid " + strconv.Itoa(pid) + ") still running after SIGKILL")
}

// forwarder relays TCP connections from a stable address to the server's
// current one.
type forwarder struct {
	ln      net.Listener
	mu      sync.Mutex
	backend string
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

func newForwarder(backend string) (*forwarder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &forwarder{ln: ln, backend: backend, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.serve()
	return f, nil
}

func (f *forwarder) addr() string { return f.ln.Addr().String() }

// setBackend points new connections at addr ("" while the server is down)
// and drops the connections to the previous one.
func (f *forwarder) setBackend(addr string) {
	f.mu.Lock()
	f.backend = addr
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
	f.mu.Unlock()
}

func (f *forwarder) close() {
	f.ln.Close()
	f.setBackend("")
	f.wg.Wait()
}

func (f *forwarder) serve() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		backend := f.backend
		f.mu.Unlock()
		if backend == "" {
			c.Close()
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.relay(c, backend)
		}()
	}
}

func (f *forwarder) relay(c net.Conn, backend string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	s, err := (&net.Dialer{}).DialContext(ctx, "tcp", backend)
	cancel()
	if err != nil {
		c.Close()
		return
	}
	f.mu.Lock()
	if f.backend != backend { // the server went away meanwhile
		f.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	f.conns[c], f.conns[s] = struct{}{}, struct{}{}
	f.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(s, c)
	go pipe(c, s)
	<-done
	c.Close()
	s.Close()
	<-done
	f.mu.Lock()
	delete(f.conns, c)
	delete(f.conns, s)
	f.mu.Unlock()
}
