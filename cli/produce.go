package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/labgen/labgen/generator"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// DSNEnvVar overrides the MySQL address of produce (the compose service
// sets it to reach the mysql service).
const DSNEnvVar = "LABGEN_MYSQL_DSN"

// PostgresURLEnvVar is DSNEnvVar for a lab whose source is PostgreSQL.
const PostgresURLEnvVar = "LABGEN_POSTGRES_URL"

// sampleEpoch is where --sample's logical clock starts unless --start says
// otherwise: a fixed instant, so that two runs print the same lines.
var sampleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func init() {
	register(&command{
		name:    "produce",
		args:    "DIR [--rate N|max] [--count N] [--duration D] [--seed S] [--start TIME] [--producer NAME] [--batch N] [--progress D] [--mysql DSN | --postgres URL] [--sample N]",
		summary: "write the lab's source tables continuously (the producer)",
		help: `
Reads DIR/lab.json (a rendered lab, see labgen render) and writes the rows
its producers declare into MySQL: parent rows (orders) at the declared rate
with the declared value distributions, and their follow-ups (payments)
after a random delay with weighted outcomes, which also update the parent
row where the lab says so. An outcome declared as never (NONE) means no
follow-up at all.

Reproducible: every value, every follow-up's outcome and delay depend only
on the seed (the lab's, or --seed) and the lab, never on timing, batching
or reconnects. Order number i is the same order in every run.

Two clocks:
  --rate N     wall clock: N orders per second, each event stamped with the
               time it happens; follow-ups are written when they fall due.
  --rate max   logical clock: as fast as MySQL accepts, timestamps
               advancing as if at the lab's rate. With --count the history
               ends now, so --count 18000 --rate max backfills one hour of
               a 5/s lab in seconds. --start T pins the clock instead.
               A backfill is history, so each transaction (up to 2.5 x
               --batch orders) writes its rows in their final state: an
               order whose payment falls in the same transaction is
               inserted already PAID or PAYMENT_FAILED, without an UPDATE.
               The tables end up the same; only the binlog (what CDC
               reads) lacks those orders' CREATED state. At a finite
               --rate every state reaches MySQL when it happens.

The producer resumes after the largest key already in the table, so it can
be stopped and started again without duplicating orders. If MySQL goes
away it reports it, retries with backoff and carries on where it stopped;
no order or follow-up is lost or written twice, and pending follow-ups are
kept. Ctrl-C (or SIGTERM) writes what is buffered and exits 0; follow-ups
not yet due are reported as dropped.

MySQL: --mysql DSN, else $LABGEN_MYSQL_DSN, else 127.0.0.1 at the lab's
MySQL port and database, as MYSQL_APP_USER / MYSQL_APP_PASSWORD from
DIR/.env. A DSN is user:password@tcp(host:port)/database or
mysql://user:password@host:port/database; without a user, the one in .env
is used.

Examples:
  labgen produce out/orders                          # at the lab's rate, until Ctrl-C
  labgen produce out/orders --rate 50 --duration 10m
  labgen produce out/orders --rate max --count 18000 # one hour of history, now
  labgen produce out/orders --sample 10              # print 10 events, write nothing
  labgen produce out/orders --sample 5 --seed 7 | jq .row
  labgen produce out/orders --mysql 'lab_app:secret@tcp(db.local:3306)/shop'`,
		setup: func(fset *flag.FlagSet, env *Env) func(context.Context, []string) error {
			dsn := fset.String("mysql", "", "MySQL `DSN` (default $LABGEN_MYSQL_DSN, else the lab's MySQL with .env's app user)")
			pgURL := fset.String("postgres", "", "PostgreSQL `URL` or host:port (default $LABGEN_POSTGRES_URL, else the lab's PostgreSQL with .env's app user)")
			rate := fset.String("rate", "", "orders per second, or `max` for as fast as MySQL accepts (default: the lab's rate)")
			duration := fset.Duration("duration", 0, "stop after `D` (e.g. 10m); follow-ups not yet due are dropped")
			count := fset.Int64("count", 0, "write `N` orders (per producer), then the follow-ups still due, then stop")
			seed := fset.Int64("seed", 0, "the seed `S` of all randomness (default: the lab's seed)")
			sample := fset.Int("sample", 0, "print the first `N` events as JSON lines and write nothing (no database needed)")
			start := fset.String("start", "", "logical `TIME` of order number 0 with --rate max or --sample (RFC 3339, e.g. 2026-01-01T00:00:00Z)")
			producer := fset.String("producer", "", "run only the producer `NAME` (default: all of the lab's producers)")
			batch := fset.Int("batch", 1000, "at most `N` rows per INSERT (with --rate max, transactions of 2.5 x N rows per table)")
			every := fset.Duration("progress", 10*time.Second, "how often a progress line is logged when stderr is not a terminal")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("produce takes one rendered lab directory")
				}
				dir := args[0]
				seedSet := false
				fset.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
				o := produceOpts{dsn: *dsn, pgURL: *pgURL, count: *count, duration: *duration, sample: *sample, producer: *producer, batch: *batch, every: *every}
				switch r := strings.TrimSpace(*rate); {
				case r == "":
				case r == "max":
					o.logical = true
				default:
					f, err := strconv.ParseFloat(r, 64)
					if err != nil || !(f > 0) || math.IsInf(f, 0) {
						return usagef("--rate takes a positive number of orders per second or max, not %q", r)
					}
					o.rate = f
				}
				if *count < 0 {
					return usagef("--count must not be negative")
				}
				if *duration < 0 {
					return usagef("--duration must not be negative")
				}
				if *sample < 0 {
					return usagef("--sample must not be negative")
				}
				if *batch < 1 {
					return usagef("--batch must be at least 1")
				}
				if *start != "" {
					if !o.logical && o.sample == 0 {
						return usagef("--start sets the logical clock; use it with --rate max or --sample")
					}
					t, err := parseTime(*start)
					if err != nil {
						return usagef("--start: %v", err)
					}
					o.start = t
				}
				lab, err := readLab(dir)
				if err != nil {
					return err
				}
				o.seed = lab.Lab.Seed
				if seedSet {
					o.seed = *seed
				}
				return produce(ctx, env, lab, o)
			}
		},
	})
}

type produceOpts struct {
	dsn, pgURL, producer string
	rate                 float64
	logical              bool
	count                int64
	duration             time.Duration
	seed                 int64
	sample               int
	start                time.Time
	batch                int
	every                time.Duration
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time; write it as 2026-01-01T00:00:00Z", s)
}

// readLab reads DIR/lab.json (.env only when it is needed, see
// mysqlConfig) with a message that says what to do when it is not there.
func readLab(dir string) (*labdir.Lab, error) {
	lab, err := labdir.Open(dir)
	var nr *labdir.NotRenderedError
	switch {
	case errors.As(err, &nr) && nr.Source:
		return nil, usagef("%s is a lab's source, not a rendered lab; render it first (labgen render %s -o out/NAME) and produce into that", dir, dir)
	case errors.As(err, &nr):
		return nil, usagef("%s has no lab.json; produce reads a rendered lab directory (labgen render LAB_DIR -o %s)", dir, dir)
	}
	return lab, err
}

func produce(ctx context.Context, env *Env, lab *labdir.Lab, o produceOpts) error {
	plans, err := generator.Compile(lab.Lab, o.seed)
	if err != nil {
		return &exitError{code: ExitLabErrors, msg: fmt.Sprintf("lab.json: %v", err)}
	}
	if o.producer != "" {
		var sel []*generator.Plan
		var names []string
		for _, p := range plans {
			names = append(names, p.Name)
			if p.Name == o.producer {
				sel = append(sel, p)
			}
		}
		if sel == nil {
			return usagef("the lab has no producer %q (it has: %s)", o.producer, strings.Join(names, ", "))
		}
		plans = sel
	}
	if len(plans) == 0 {
		return &exitError{code: ExitLabErrors, msg: "the lab declares no producer"}
	}

	if o.sample > 0 {
		start := sampleEpoch
		if !o.start.IsZero() {
			start = o.start
		}
		var streams []*generator.Stream
		for _, p := range plans {
			streams = append(streams, generator.NewStream(p, generator.StreamConfig{Start: start, Rate: o.rate, Count: o.count}))
		}
		return generator.Sample(env.Stdout, streams, o.sample)
	}

	engine := query.MySQL
	if o.pgURL != "" || o.dsn == "" && lab.Lab.SourceStore() == schemas.StorePostgres {
		engine = query.Postgres
	}
	ep, err := producerEndpoint(env, lab, o, engine)
	if err != nil {
		return err
	}
	var sink interface {
		generator.Sink
		Check(context.Context, []*generator.Plan) error
		Where() string
		Close() error
	}
	if engine == query.Postgres {
		cfg, err := ep.PostgresConfig()
		if err != nil {
			return usagef("--postgres: %v", err)
		}
		sink, err = generator.OpenPostgres(ctx, cfg)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	} else {
		cfg, err := ep.MySQLConfig()
		if err != nil {
			return usagef("--mysql: %v", err)
		}
		sink, err = generator.OpenMySQL(ctx, cfg)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	defer sink.Close()
	if err := sink.Check(ctx, plans); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	stats := generator.NewStats(plans)
	prog := generator.NewProgress(env.Stderr, stats, env.Terminal, o.every)
	clock := "wall clock"
	switch {
	case o.logical:
		clock = "logical clock, as fast as MySQL accepts"
	case o.rate > 0:
		clock = fmt.Sprintf("wall clock, %g orders/s", o.rate)
	}
	prog.Log(fmt.Sprintf("producing into %s (seed %d, %s)", sink.Where(), o.seed, clock))
	prog.Start()
	sum, err := generator.Run(ctx, plans, sink, generator.Options{
		Rate:      o.rate,
		Logical:   o.logical,
		Start:     o.start,
		Count:     o.count,
		Duration:  o.duration,
		Resume:    true,
		BatchRows: o.batch,
		Stats:     stats,
		Log:       prog.Log,
	})
	prog.Stop()
	if err != nil {
		if ctx.Err() != nil && sum == nil {
			return nil // interrupted before anything was written
		}
		return err
	}
	fmt.Fprintln(env.Stdout, summaryLine(sum))
	if sum.Dropped > 0 {
		fmt.Fprintf(env.Stderr, "%s follow-ups were not due yet when the run ended and were not written.\n", thousandsInt(int64(sum.Dropped)))
	}
	if sum.Unwritten > 0 {
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("MySQL stayed unreachable after the interrupt: %s events were not written", thousandsInt(int64(sum.Unwritten)))}
	}
	return nil
}

// summaryLine says what a run wrote, e.g. "Wrote 3,000 orders and 2,853
// payments (FAILED 430, PAID 2,423) in 1.2s (4,100 rows/s)."
func summaryLine(sum *generator.Summary) string {
	var parts []string
	for _, p := range sum.Producers {
		parts = append(parts, thousandsInt(p.Rows)+" "+p.Table)
		for _, f := range p.Follows {
			part := thousandsInt(f.Rows()) + " " + f.Table
			if len(f.Outcomes) > 1 {
				var oc []string
				for i, o := range f.Outcomes {
					oc = append(oc, o+" "+thousandsInt(f.Counts[i]))
				}
				part += " (" + strings.Join(oc, ", ") + ")"
			}
			parts = append(parts, part)
		}
	}
	list := parts[0]
	if n := len(parts); n > 1 {
		list = strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	line := fmt.Sprintf("Wrote %s in %s", list, sum.Elapsed.Round(time.Millisecond))
	if secs := sum.Elapsed.Seconds(); secs > 0 {
		line += fmt.Sprintf(" (%s rows/s)", thousandsInt(int64(float64(sum.Rows())/secs)))
	}
	return line + "."
}

func thousandsInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// producerEndpoint works out where to write: --mysql or --postgres, their
// environment variable, or the lab's database on 127.0.0.1; a value
// without a user takes the app user of DIR/.env (read only then).
func producerEndpoint(env *Env, lab *labdir.Lab, o produceOpts, engine string) (query.Endpoint, error) {
	flag, envVar, dsn, appUser := "--mysql", DSNEnvVar, o.dsn, labdir.MySQLAppUser
	appPassword, example := labdir.MySQLAppPassword, "mysql://user:password@host:port/database"
	if engine == query.Postgres {
		flag, envVar, dsn, appUser = "--postgres", PostgresURLEnvVar, o.pgURL, labdir.PostgresAppUser
		appPassword, example = labdir.PostgresAppPassword, "postgres://user:password@host:port/database"
	}
	from := flag
	if dsn == "" {
		dsn, from = labdir.LookupEnv(env.Environ, envVar), "$"+envVar
	}
	ep, ok := lab.Endpoint(engine, labdir.App, nil)
	ep.User, ep.Password = "", ""
	switch {
	case dsn != "":
		var err error
		if ep, err = labdir.ParseEndpoint(engine, dsn, ep); err != nil {
			return ep, usagef("%s %v", from, err)
		}
	case !ok:
		return ep, usagef("the lab's stack has no %s; say where to write with %s %s", labdir.Title(engine), flag, strings.ToUpper(example))
	}
	if ep.User == "" {
		envPath := lab.EnvPath()
		if err := lab.LoadEnv(); err != nil {
			return ep, fmt.Errorf("reading %s: %v", envPath, err)
		}
		if !lab.HasEnv {
			return ep, usagef("%s not found: it holds the producer's %s user (%s, %s); render the lab again, or pass %s %s", envPath, labdir.Title(engine), appUser, appPassword, flag, example)
		}
		app, _ := lab.Endpoint(engine, labdir.App, nil)
		if app.User == "" {
			return ep, usagef("%s has no %s; render the lab again, or pass %s %s", envPath, appUser, flag, example)
		}
		ep.User, ep.Password = app.User, app.Password
	}
	return ep, nil
}
