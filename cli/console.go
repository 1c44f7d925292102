package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/console"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "console",
		args:    "OUT [--listen ADDR] [--mysql ADDR|URL|DSN] [--postgres ADDR|URL] [--clickhouse ADDR|URL] [--max-rows N] [--timeout DURATION]",
		summary: "serve the read-only query console of a rendered lab",
		help: `
Serves a small web page for querying a running lab: pick MySQL or
ClickHouse, load one of the lab's read-only presets or type SQL, run it and
see the result with column types, row count and query time. The page needs
no network access beyond the console itself. Behind it is a JSON API:
GET /api/presets and POST /api/query {"engine": "mysql", "sql": "SELECT …"}.

Only single read statements run (SELECT, WITH … SELECT, SHOW, DESCRIBE,
EXPLAIN); anything else is refused before it reaches a database, and the
database sessions are read-only too, as the lab's read-only users
(MYSQL_READER_USER, CLICKHOUSE_READER_USER). Results are capped at
--max-rows and queries stop after --timeout.

Defaults come from the rendered lab directory OUT: lab.json for the stack
(databases and 127.0.0.1 ports) and .env for the reader users' names and
passwords; variables of the same names in the environment take precedence.
--mysql takes a host:port, mysql://user:password@host:port/db or a
go-sql-driver DSN (user:password@tcp(host:port)/db); --postgres a host:port
or postgres://user:password@host:port/db; --clickhouse takes a
host:port of the native protocol, clickhouse://user:password@host:port/db
or http://user:password@host:8123/db. What a value leaves out (user,
password, database) is the lab's, as for labgen run.

The console listens on 127.0.0.1 at the lab's console port unless --listen
says otherwise; it runs until interrupted.

Examples:
  labgen console out/orders
  labgen console out/orders --listen 127.0.0.1:9999
  labgen console /lab --listen 0.0.0.0:8088 --mysql mysql:3306 --clickhouse clickhouse:9000`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			var o consoleOptions
			fs.StringVar(&o.listen, "listen", "", "listen on `ADDR` (default 127.0.0.1 and the lab's console port)")
			fs.StringVar(&o.mysql, "mysql", "", "MySQL `ADDR`, mysql:// URL or DSN (default 127.0.0.1 and the lab's MySQL port)")
			fs.StringVar(&o.postgres, "postgres", "", "PostgreSQL `ADDR` or postgres:// URL (default 127.0.0.1 and the lab's PostgreSQL port)")
			fs.StringVar(&o.clickhouse, "clickhouse", "", "ClickHouse native `ADDR`, clickhouse:// or http:// URL (default 127.0.0.1 and the lab's native port)")
			fs.IntVar(&o.maxRows, "max-rows", query.DefaultLimits.MaxRows, "keep at most `N` rows of a result")
			fs.DurationVar(&o.timeout, "timeout", query.DefaultLimits.Timeout, "stop a query after `DURATION`")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("console takes one rendered lab directory")
				}
				setup, err := resolveConsole(args[0], o, env.Environ)
				if err != nil {
					return err
				}
				return runConsole(ctx, env, setup, o)
			}
		},
	})
}

type consoleOptions struct {
	listen, mysql, postgres, clickhouse string
	maxRows                             int
	timeout                             time.Duration
}

// consoleSetup is what the console connects to, resolved from the rendered
// lab, its .env, the environment and the flags.
type consoleSetup struct {
	lab    *schemas.Lab
	listen string
	// endpoints has an endpoint for each engine the console can query,
	// and why the others are unavailable.
	endpoints labdir.Endpoints
}

func resolveConsole(dir string, o consoleOptions, environ []string) (*consoleSetup, error) {
	if o.maxRows <= 0 {
		return nil, usagef("--max-rows must be at least 1")
	}
	if o.timeout <= 0 {
		return nil, usagef("--timeout must be positive")
	}
	lab, err := labdir.Open(dir)
	var nr *labdir.NotRenderedError
	if errors.As(err, &nr) {
		return nil, usagef("%s is not a rendered lab: it has no lab.json (render the lab first: labgen render LAB_DIR -o %s)", dir, dir)
	}
	if err != nil {
		return nil, err
	}
	// The console of the compose stack reads the lab through a bind mount
	// as its own user, to whom .env (0600, the host user's) is closed; its
	// users come from its environment, and one missing is named below.
	if err := lab.LoadEnv(); err != nil && !errors.Is(err, iofs.ErrPermission) {
		return nil, err
	}
	s := &consoleSetup{lab: lab.Lab, listen: o.listen}
	if s.listen == "" {
		s.listen = lab.ConsoleAddr()
	}
	s.endpoints, err = lab.ResolveEndpoints(environ, labdir.Overrides{DB: map[string]string{query.MySQL: o.mysql, query.Postgres: o.postgres, query.ClickHouse: o.clickhouse}})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return s, nil
}

func runConsole(ctx context.Context, env *Env, s *consoleSetup, o consoleOptions) error {
	cfg := console.Config{
		Lab:         s.lab,
		Engines:     map[string]query.Engine{},
		Unavailable: map[string]string{},
		Limits:      query.Limits{MaxRows: o.maxRows, Timeout: o.timeout},
		Log:         log.New(env.Stderr, "console: ", log.LstdFlags),
	}
	var using []string
	for _, engine := range labdir.Engines {
		ep, ok := s.endpoints.DB[engine]
		if !ok && engine == query.Postgres && !s.lab.Stack.Has(engine) {
			continue // few labs have one: not worth a line
		}
		if !ok {
			cfg.Unavailable[engine] = s.endpoints.Missing[engine]
			fmt.Fprintf(env.Stderr, "labgen console: %s is not available: %s\n", labdir.Title(engine), s.endpoints.Missing[engine])
			continue
		}
		e, err := query.Open(ep)
		if err != nil {
			return usagef("--%s: %v", engine, err)
		}
		defer e.Close()
		cfg.Engines[engine] = e
		using = append(using, labdir.Title(engine)+" "+ep.Short())
	}
	if len(cfg.Engines) == 0 {
		return &exitError{code: ExitRunFailed, msg: "no engine to query: neither MySQL, PostgreSQL nor ClickHouse is available"}
	}
	srv, err := console.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.listen, err)
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(env.Stderr, "labgen console: listening on %s, which other machines may reach; the console has no login\n", ln.Addr())
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintf(env.Stdout, "Query console of lab %q at http://%s/ (%s). Read-only; Ctrl-C stops it.\n",
		s.lab.Name, ln.Addr(), strings.Join(using, ", "))
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	return nil
}
