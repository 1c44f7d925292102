package runner

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/generator"
	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// liveExperiments replace the seed lab's experiments in TestSampledGrowth:
// a count of orders sampled every 500 ms for 4 s while the producer
// writes, and the payment delays beside the declared distribution.
const liveExperiments = `
experiment "live" {
  number = 1
  title  = "Live"

  step "count" {
    engine = "mysql"
    sql    = "SELECT COUNT(*) AS n FROM orders"
  }

  step "growth" {
    wait = {
      rerun    = step.count
      "for"    = "4s"
      interval = "500ms"
    }
    sample = { n = result.rows[0].n }
  }

  step "payment_delays" {
    engine   = "mysql"
    sql      = "SELECT TIMESTAMPDIFF(MICROSECOND, o.created_at, p.updated_at) / 1000000 AS delay_s FROM payments p JOIN orders o ON o.order_id = p.order_id ORDER BY p.payment_id DESC LIMIT 400"
    max_rows = 400
    compare  = { declared = producer.shop.follow.payment.delay, column = "delay_s" }
  }
}
`

// TestSampledGrowth runs a sampling step against MariaDB while the seed
// lab's producer writes orders (issue 14): the sampled order count must
// never fall and must grow, at the step's interval; and a compare step
// sets the payment delays MariaDB shows beside the declared distribution.
func TestSampledGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live producer for about 10 s")
	}
	maria := testsrv.MariaDB(t)
	// The seed lab with the experiments above.
	src := t.TempDir()
	for _, f := range []string{"lab.hcl", "stack.hcl", "tables.hcl", "jobs.hcl", "presets.hcl", "producer.hcl"} {
		b, err := os.ReadFile(filepath.Join("../../labs/orders", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"jobs", "presets"} {
		if err := os.CopyFS(filepath.Join(src, d), os.DirFS(filepath.Join("../../labs/orders", d))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "experiments.hcl"), []byte(liveExperiments), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := schemas.NewParser().Load(src, schemas.Options{Vars: []schemas.VarArg{
		{Name: "lakes", Value: "false"},
		{Name: "payment_delay", Value: "2s"},
		{Name: "payment_delay_max", Value: "10s"},
		{Name: "payment_outcomes", Value: `{ PAID = 80, FAILED = 20, NONE = 0 }`},
	}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	db, rootDSN := maria.NewDatabase(t)
	lab.Stack.MySQL.Database, lab.Stack.MySQL.Port = db, maria.Port()
	for _, tb := range lab.Tables {
		for _, st := range tb.Stores {
			if st.Kind == schemas.StoreMySQL {
				st.Database = db
			}
		}
	}
	dir, files := renderLab(t, lab)
	env := editEnv(t, dir, func(env map[string]string) {
		for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
			env[k] += "_" + db
		}
	})
	root, err := sql.Open("mysql", rootDSN+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	t.Cleanup(func() {
		for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
			root.Exec("DROP USER IF EXISTS '" + env[k] + "'@'%'")
		}
	})
	// MariaDB spells a plugin with a password differently (see
	// TestSeedExperiment03).
	users := strings.ReplaceAll(os.Expand(string(files["sql/mysql/users.sql"]), func(k string) string { return env[k] }),
		"IDENTIFIED WITH mysql_native_password BY", "IDENTIFIED BY")
	for name, text := range map[string]string{"schema.sql": string(files["sql/mysql/schema.sql"]), "users.sql": users} {
		if _, err := root.Exec(text); err != nil {
			t.Fatalf("sql/mysql/%s: %v", name, err)
		}
	}

	// The producer, live at 5 orders per second.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plans, err := generator.Compile(lab, lab.Seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = env["MYSQL_APP_USER"], env["MYSQL_APP_PASSWORD"], "tcp", maria.Addr(), db
	sink, err := generator.OpenMySQL(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	produced := make(chan error, 1)
	go func() {
		_, err := generator.Run(ctx, plans, sink, generator.Options{Rate: 5, Resume: true})
		produced <- err
	}()
	time.Sleep(3 * time.Second) // some orders, and payments after ~2 s

	l, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Lab: l, Endpoints: l.Endpoints(nil), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(ctx, time.Minute)
	defer rcancel()
	rec, err := r.Run(rctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-produced; err != nil {
		t.Errorf("producer: %v", err)
	}
	e := rec.Experiment("live")
	if e == nil || len(e.Steps) != 3 {
		t.Fatalf("experiment: %+v", e)
	}
	for _, s := range e.Steps {
		if s.Status != record.StatusOK {
			t.Fatalf("step %s: %s %s", s.Name, s.Status, s.Error)
		}
	}

	// The series: every 500 ms for 4 s is eight runs (at 0, 0.5, … 3.5 s;
	// a run at 4 s would be past the end); seven when the runs themselves
	// took more than 4 s / 7 − 500 ms each.
	g := e.Steps[1]
	if n := len(g.Samples); n < 7 || n > 8 {
		t.Fatalf("%d samples, want 8 (7 on a slow machine): %+v", n, g.Samples)
	}
	var counts []int64
	for i, sm := range g.Samples {
		if sm.Error != "" {
			t.Fatalf("sample %d: %s", i, sm.Error)
		}
		var n int64
		if err := json.Unmarshal(sm.Values["n"], &n); err != nil {
			t.Fatalf("sample %d: n = %s: %v", i, sm.Values["n"], err)
		}
		if i > 0 {
			if gap := sm.MS - g.Samples[i-1].MS; gap < 500 || gap > 1000 {
				t.Errorf("samples %d and %d are %d ms apart, want 500 ms and a little", i-1, i, gap)
			}
			if n < counts[i-1] {
				t.Errorf("the order count fell from %d to %d at sample %d", counts[i-1], n, i)
			}
		}
		counts = append(counts, n)
	}
	if counts[len(counts)-1] <= counts[0] {
		t.Errorf("the order count did not grow while the producer ran: %v", counts)
	}

	// Generator input vs observed: delays between 0 and the clamp (plus
	// the time a write takes), binned, the declared counts adding up.
	c := e.Steps[2].Compare
	if c == nil || len(c.Values) == 0 || c.Declared != "exponential(2, { max = 10 })" || c.Unit != "s" {
		t.Fatalf("compare: %+v", c)
	}
	observed, declared := 0, 0.0
	for _, b := range c.Bins {
		observed += b.Observed
		declared += b.Declared
	}
	if observed != len(c.Values) || declared < float64(observed)-0.01 || declared > float64(observed)+0.01 {
		t.Errorf("bins: %d observed and %.2f declared of %d values", observed, declared, len(c.Values))
	}
	for _, v := range c.Values {
		if v < 0 || v > 12 {
			t.Errorf("a payment delay of %g s, declared at most 10 s", v)
		}
	}
}
