package runner

import (
	"context"
	"database/sql"
	"fmt"
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

// TestSeedExperiment03 runs the seed lab's experiment 03 ("Watch a delayed
// payment update a join") as labgen run would, against MariaDB with the
// lab's producer writing live orders and payments, and ClickHouse. There
// is no Flink here: a loop in the test stands in for the order_wide job
// and copies the LEFT JOIN of orders and payments into
// analytics.dwd_order_wide twice a second. The record must show the chosen
// order, its PENDING row, the payment arriving during the wait, and the
// joined row after it.
func TestSeedExperiment03(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live producer for about 30 s")
	}
	maria := testsrv.MariaDB(t)
	ch := testsrv.ClickHouse(t)
	p := schemas.NewParser()
	lab, diags := p.Load("../../labs/orders", schemas.Options{Vars: []schemas.VarArg{
		{Name: "lakes", Value: "false"},
		// The experiment follows orders at least 10 s old without a
		// payment: half of them are still unpaid at 15 s on average.
		{Name: "payment_delay", Value: "15s"},
		{Name: "payment_delay_max", Value: "40s"},
		// Every order gets a payment, so the wait cannot time out.
		{Name: "payment_outcomes", Value: `{ PAID = 80, FAILED = 20, NONE = 0 }`},
	}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	db, rootDSN := maria.NewDatabase(t)
	lab.Stack.MySQL.Database, lab.Stack.MySQL.Port = db, maria.Port()
	lab.Stack.ClickHouse.TCPPort = portOf(t, ch.NativeAddr())
	for _, tb := range lab.Tables {
		for _, st := range tb.Stores {
			if st.Kind == schemas.StoreMySQL {
				st.Database = db
			}
		}
	}
	dir, files := renderLab(t, lab)

	// MySQL: the rendered schema and users (names made unique: users are
	// server-wide).
	env := editEnv(t, dir, func(env map[string]string) {
		for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
			env[k] += "_" + db
		}
		env["CLICKHOUSE_READER_USER"], env["CLICKHOUSE_READER_PASSWORD"] = testsrv.ClickHouseReadOnlyUser, ""
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
	users := os.Expand(string(files["sql/mysql/users.sql"]), func(k string) string { return env[k] })
	// MariaDB spells a plugin with a password differently; its default
	// plugin is mysql_native_password anyway, so plain BY means the same
	// (as render's TestMySQLDDLOnMariaDB does).
	users = strings.ReplaceAll(users, "IDENTIFIED WITH mysql_native_password BY", "IDENTIFIED BY")
	for name, text := range map[string]string{"schema.sql": string(files["sql/mysql/schema.sql"]), "users.sql": users} {
		if _, err := root.Exec(text); err != nil {
			t.Fatalf("sql/mysql/%s: %v", name, err)
		}
	}
	// ClickHouse: the serving table as the experiment's SQL names it.
	ch.Exec(t, "CREATE DATABASE IF NOT EXISTS analytics")
	t.Cleanup(func() { ch.Query(context.Background(), "", "", "DROP DATABASE IF EXISTS analytics") })
	ch.Exec(t, "CREATE TABLE analytics.dwd_order_wide (order_id Int64, order_status String, payment_status String, updated_at DateTime, arrived_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree(updated_at) ORDER BY order_id")

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
	// The stand-in for the order_wide job.
	go func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			rows, err := root.QueryContext(ctx, `SELECT o.order_id, o.order_status, COALESCE(p.payment_status, 'PENDING'),
  DATE_FORMAT(GREATEST(o.updated_at, COALESCE(p.updated_at, o.updated_at)), '%Y-%m-%d %H:%i:%s')
FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id`)
			if err != nil {
				continue
			}
			var vals []string
			for rows.Next() {
				var id int64
				var os, ps, up string
				if rows.Scan(&id, &os, &ps, &up) == nil {
					vals = append(vals, fmt.Sprintf("(%d, '%s', '%s', '%s')", id, os, ps, up))
				}
			}
			rows.Close()
			if len(vals) > 0 {
				ch.Query(ctx, "", "", "INSERT INTO analytics.dwd_order_wide (order_id, order_status, payment_status, updated_at) VALUES "+strings.Join(vals, ", "))
			}
		}
	}()
	// The experiment follows orders created once it started, older than
	// 10 s, some paid since: it waits for them itself.

	l, err := labdir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Lab: l, Endpoints: l.Endpoints(nil), Experiments: []string{"3"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer rcancel()
	rec, err := r.Run(rctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-produced; err != nil {
		t.Errorf("producer: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(r.Dir(), record.MarkdownName))
	if *update {
		// The README's excerpt comes from here.
		os.WriteFile(filepath.Join("testdata", "seed-experiment-03.md"), md, 0o644)
	}
	e := rec.Experiment("delayed_payment")
	if e == nil || len(e.Steps) != 12 {
		t.Fatalf("experiment 03:\n%s", md)
	}
	steps := map[string]*record.Step{}
	for _, s := range e.Steps {
		steps[s.Name] = s
		if s.Status != record.StatusOK {
			t.Errorf("step %s: %s %s", s.Name, s.Status, s.Error)
		}
	}
	followed := steps["pending"].Captures[0].Display
	if followed == "" {
		t.Fatalf("no orders picked:\n%s", md)
	}
	if w := steps["wait_for_payment"]; w.Attempts < 1 || !strings.Contains(w.Ran.SQL, "WHERE order_id IN ("+followed+")") {
		t.Errorf("wait: %+v", w.Ran)
	}
	paid := steps["wait_for_payment"].Captures[0].Display
	if paid == "" || !strings.Contains(", "+followed+",", " "+paid+",") {
		t.Errorf("the order paid first (%s) is not one of those followed (%s)", paid, followed)
	}
	// The expectation after the payment waits on the layer it reads.
	if w := steps["wait_for_join"]; w.Attempts < 1 || !strings.Contains(w.Ran.SQL, "analytics.dwd_order_wide FINAL WHERE order_id = "+paid) {
		t.Errorf("wait for the join: %+v", w.Ran)
	}
	for _, name := range []string{"serving_before", "wait_for_join", "paid_row"} {
		if len(steps[name].Expectations) == 0 {
			t.Errorf("%s has no expectation", name)
		}
		for _, x := range steps[name].Expectations {
			if !x.Held {
				t.Errorf("%s: expectation not held: %s (%s)\n%s", name, x.Message, x.Error, md)
			}
		}
	}
	// The finding comes from the paid row's own times: ClickHouse (here
	// the stand-in's now(), to the second) inserted it after the payment.
	if len(e.Measures) != 1 || e.Measures[0].Value == nil || *e.Measures[0].Value < 0 || *e.Measures[0].Value > 10 {
		t.Fatalf("payment_to_clickhouse: %+v\n%s", e.Measures, md)
	}
	// The record keeps the definition lab.json gives the measure, and
	// what the lab says it summarises: one order, to the millisecond.
	m, lm := e.Measures[0], l.Lab.Experiment("delayed_payment").Measures[0]
	if m.Definition == "" || m.Definition != lm.Definition {
		t.Errorf("the record's definition %q, lab.json's %q", m.Definition, lm.Definition)
	}
	if m.Samples == nil || *m.Samples != 1 || m.ResolutionS == nil || *m.ResolutionS != 0.001 || m.WindowS != nil || m.Missing != nil {
		t.Errorf("payment_to_clickhouse summarises %+v", m)
	}
	if strings.Contains(string(md), env["MYSQL_READER_PASSWORD"]) {
		t.Error("the record holds the reader's password")
	}
}
