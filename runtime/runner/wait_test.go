package runner

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// waitsLab is a lab whose waits meet an error that waiting cannot change
// (1, 2), a table that comes later (3, 4), and a capture that finds
// nothing (5, as the seed lab's experiment 03 when no order is pending).
const waitsLab = `
lab "waits" {
  title = "Waits"
  seed  = 1
}

stack {
  mysql {
    database = "shop"
  }
  clickhouse {
    database = "analytics"
  }
}

# The tables the queries name; the tests create them on their servers.
table "orders" {
  key = ["order_id"]
  column "order_id" { type = "bigint" }
  store "mysql" {}
}

table "later" {
  key = ["n"]
  column "n" { type = "bigint" }
  store "mysql" {}
  store "clickhouse" {}
}

experiment "syntax" {
  number = 1
  title  = "A syntax error"

  step "payment" {
    engine = "mysql"
    sql    = "SELECT order_id FROM orders WHERE order_id IN ()"
  }

  step "wait_for_payment" {
    wait = {
      rerun    = step.payment
      until    = length(result.rows) > 0
      interval = "200ms"
      timeout  = "1m"
    }
  }

  step "sample_payment" {
    wait = {
      rerun    = step.payment
      "for"    = "1m"
      interval = "200ms"
    }
  }
}

experiment "writes" {
  number = 2
  title  = "SQL that writes, known only at run time"

  step "pick" {
    engine  = "mysql"
    sql     = "SELECT 'DELETE FROM orders' AS stmt"
    capture = { stmt = result.rows[0].stmt }
  }

  step "run_it" {
    engine = "mysql"
    sql    = "${step.pick.stmt}"
  }

  step "wait_for_it" {
    wait = {
      rerun    = step.run_it
      until    = true
      interval = "200ms"
      timeout  = "1m"
    }
  }
}

experiment "later_mysql" {
  number = 3
  title  = "A MySQL table that comes later"

  step "count" {
    engine = "mysql"
    sql    = "SELECT n FROM later"
  }

  step "wait_for_table" {
    wait = {
      rerun    = step.count
      until    = length(result.rows) > 0
      interval = "200ms"
      timeout  = "30s"
    }
  }
}

experiment "later_clickhouse" {
  number = 4
  title  = "A ClickHouse table that comes later"

  step "count" {
    engine = "clickhouse"
    sql    = "SELECT n FROM later"
  }

  step "wait_for_table" {
    wait = {
      rerun    = step.count
      until    = length(result.rows) > 0
      interval = "200ms"
      timeout  = "30s"
    }
  }
}

experiment "nothing_pending" {
  number = 5
  title  = "No order is pending"

  step "orders" {
    engine = "mysql"
    sql    = "SELECT order_id FROM orders ORDER BY order_id"
  }

  step "pending" {
    engine  = "mysql"
    sql     = "SELECT order_id FROM orders WHERE order_id < 0"
    capture = {
      order_ids = join(", ", [for r in result.rows : tostring(r.order_id)])
    }
  }

  step "serving_before" {
    engine = "mysql"
    sql    = "SELECT order_id FROM orders WHERE order_id IN (${step.pending.order_ids}) ORDER BY order_id"
  }

  step "payment" {
    engine = "mysql"
    sql    = "SELECT order_id FROM orders WHERE order_id IN (${step.pending.order_ids}) LIMIT 1"
  }

  step "wait_for_payment" {
    wait = {
      rerun    = step.payment
      until    = length(result.rows) > 0
      interval = "200ms"
      timeout  = "1m"
    }
  }

  # Needs the capture only in its until.
  step "wait_for_order" {
    wait = {
      rerun    = step.orders
      until    = contains([for r in result.rows : tostring(r.order_id)], step.pending.order_ids)
      interval = "200ms"
      timeout  = "1m"
    }
  }

  step "after" {
    note = "Steps that need nothing of pending still run."
  }
}
`

// waitsRun is the waits lab on this test's MariaDB and ClickHouse:
// table orders (1, 2, 3) in MariaDB, read by a reader user; ClickHouse's
// readonly user on a database of its own.
type waitsRun struct {
	lab  *labdir.Lab
	ep   labdir.Endpoints
	root *sql.DB // MariaDB's root on the test database
	ch   *testsrv.ClickHouseServer
	chDB string
}

func newWaitsRun(t *testing.T) *waitsRun {
	t.Helper()
	maria := testsrv.MariaDB(t)
	ch := testsrv.ClickHouse(t)
	db, rootDSN := maria.NewDatabase(t)
	root, err := sql.Open("mysql", rootDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	for _, q := range []string{"CREATE TABLE orders (order_id BIGINT PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2), (3)"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	user, pw := maria.NewUser(t, "SELECT ON `"+db+"`.*")
	chDB, _ := ch.NewDatabase(t)
	dir := labdirtest.WriteFiles(t, map[string]string{"lab.hcl": waitsLab})
	l, diags := schemas.NewParser().Load(dir, schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return &waitsRun{
		lab: labdirtest.Load(t, l, map[string]string{}),
		ep: labdir.Endpoints{DB: map[string]query.Endpoint{
			query.MySQL:      {Engine: query.MySQL, Addr: maria.Addr(), Database: db, User: user, Password: pw},
			query.ClickHouse: {Engine: query.ClickHouse, Addr: ch.NativeAddr(), Database: chDB, User: testsrv.ClickHouseReadOnlyUser},
		}},
		root: root, ch: ch, chDB: chDB,
	}
}

// run runs one experiment and returns its steps by name.
func (w *waitsRun) run(t *testing.T, experiment string) map[string]*record.Step {
	t.Helper()
	r, err := New(Options{Lab: w.lab, Endpoints: w.ep, Experiments: []string{experiment}, RecordsDir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]*record.Step{}
	for _, s := range rec.Experiment(experiment).Steps {
		steps[s.Name] = s
	}
	return steps
}

// stoppedEarly checks that a wait stopped after its first run on an
// error waiting cannot change, far within its minute, and says why.
func stoppedEarly(t *testing.T, s *record.Step, why, errText string) {
	t.Helper()
	if s.Status != record.StatusError || s.Attempts != 1 {
		t.Errorf("%s: %s after %d runs, want error after 1", s.Name, s.Status, s.Attempts)
	}
	if s.DurationMS > 10_000 {
		t.Errorf("%s took %d ms; a wait of at most a minute that stops at once takes far less", s.Name, s.DurationMS)
	}
	note := "Stopped early, after run 1: " + why + ", which waiting cannot change."
	if s.Output == nil || !slices.Contains(s.Output.Notes, note) {
		t.Errorf("%s: notes %q lack %q", s.Name, notes(s), note)
	}
	if want := "stopped waiting after run 1: " + why + ", which waiting cannot change: "; !strings.HasPrefix(s.Error, want) || !strings.Contains(s.Error, errText) {
		t.Errorf("%s: error %q, want %q…%q", s.Name, s.Error, want, errText)
	}
}

func notes(s *record.Step) []string {
	if s.Output == nil {
		return nil
	}
	return s.Output.Notes
}

// TestWaitStopsOnSyntaxError: a wait re-running a query the server cannot
// parse stops after that one run, in both forms (until, and sampling for
// a duration), instead of re-running the error for its minute.
func TestWaitStopsOnSyntaxError(t *testing.T) {
	w := newWaitsRun(t)
	start := time.Now()
	steps := w.run(t, "syntax")
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the experiment took %s; its two waits of a minute each should stop at once", el)
	}
	if s := steps["payment"]; s.Status != record.StatusError || !strings.Contains(s.Error, "Error 1064") {
		t.Fatalf("payment: %s %s", s.Status, s.Error)
	}
	stoppedEarly(t, steps["wait_for_payment"], "a syntax error (MySQL error 1064)", "You have an error in your SQL syntax")
	s := steps["sample_payment"]
	stoppedEarly(t, s, "a syntax error (MySQL error 1064)", "You have an error in your SQL syntax")
	if len(s.Samples) != 1 || !strings.Contains(s.Samples[0].Error, "Error 1064") {
		t.Errorf("sample_payment keeps its one run as a sample with its error: %+v", s.Samples)
	}
}

// TestWaitStopsOnWrite: SQL filled in at run time that would write is
// refused by the runner itself, which no later run changes either.
func TestWaitStopsOnWrite(t *testing.T) {
	w := newWaitsRun(t)
	steps := w.run(t, "writes")
	stoppedEarly(t, steps["wait_for_it"], "the SQL does not only read", "not run: steps may only read")
	var n int
	if err := w.root.QueryRow("SELECT COUNT(*) FROM orders").Scan(&n); err != nil || n != 3 {
		t.Errorf("orders: %d rows (%v), want the 3 the test wrote", n, err)
	}
}

// TestWaitOutlastsMissingTable: a table that does not exist yet is what
// a wait waits for (the job creates it), on MySQL (error 1146) and
// ClickHouse (code 60): the wait keeps re-running and holds once the
// table is there.
func TestWaitOutlastsMissingTable(t *testing.T) {
	w := newWaitsRun(t)
	for _, c := range []struct {
		experiment string
		create     func() error
		noTable    string
	}{
		{"later_mysql", func() error {
			for _, q := range []string{"CREATE TABLE later (n BIGINT)", "INSERT INTO later VALUES (1)"} {
				if _, err := w.root.Exec(q); err != nil {
					return err
				}
			}
			return nil
		}, "Error 1146"},
		{"later_clickhouse", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, q := range []string{"CREATE TABLE " + w.chDB + ".later (n UInt64) ENGINE = MergeTree ORDER BY n", "INSERT INTO " + w.chDB + ".later VALUES (1)"} {
				if _, err := w.ch.Query(ctx, "", "", q); err != nil {
					return err
				}
			}
			return nil
		}, "code: 60"},
	} {
		t.Run(c.experiment, func(t *testing.T) {
			created := make(chan error, 1)
			go func() {
				time.Sleep(1500 * time.Millisecond)
				created <- c.create()
			}()
			steps := w.run(t, c.experiment)
			if err := <-created; err != nil {
				t.Fatal(err)
			}
			if s := steps["count"]; s.Status != record.StatusError || !strings.Contains(s.Error, c.noTable) {
				t.Errorf("count before the table: %s %s", s.Status, s.Error)
			}
			s := steps["wait_for_table"]
			if s.Status != record.StatusOK || s.Attempts < 3 {
				t.Fatalf("wait_for_table: %s after %d runs (%s), want ok after several", s.Status, s.Attempts, s.Error)
			}
			if len(notes(s)) == 0 || !strings.HasPrefix(notes(s)[len(notes(s))-1], "The condition held on run ") {
				t.Errorf("wait_for_table notes: %q", notes(s))
			}
			if !strings.Contains(s.Samples[0].Error, c.noTable) || s.Samples[len(s.Samples)-1].Error != "" {
				t.Errorf("samples: first %+v, last %+v", s.Samples[0], s.Samples[len(s.Samples)-1])
			}
		})
	}
}
