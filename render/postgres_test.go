package render

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/generator"
	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// TestPostgresLabOnPostgres applies labs/orders_pg's rendered schema and
// users to a real PostgreSQL, lets the producer write an hour of orders as
// the app user, and runs the lab's PostgreSQL presets and query steps as
// the reader, through the engine every command opens: each returns rows,
// and the reader cannot write even outside the engine's read-only session.
func TestPostgresLabOnPostgres(t *testing.T) {
	srv := testsrv.Postgres(t)
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders_pg"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files, err := Render(lab, Options{LabgenVersion: "test", NoSource: true})
	if err != nil {
		t.Fatal(err)
	}
	env := envValues(t, files)
	dbName, _ := srv.NewDatabase(t)
	// Roles are server-wide: one per test. psql fills users.sql's
	// :"name" and :'name' variables in the stack; here the test does.
	vars := map[string]string{}
	for _, role := range []string{"app", "cdc", "reader"} {
		user, _ := srv.NewUser(t, dbName) // dropped with what it owns when t ends
		srv.Exec(t, "postgres", `DROP ROLE "`+user+`"`)
		vars[role+"_user"] = user
		vars[role+"_password"] = env["POSTGRES_"+strings.ToUpper(role)+"_PASSWORD"]
	}
	users := regexp.MustCompile(`:"(\w+)"|:'(\w+)'`).ReplaceAllStringFunc(string(files["sql/postgres/users.sql"]), func(m string) string {
		if m[1] == '"' {
			return `"` + vars[m[2:len(m)-1]] + `"`
		}
		return "'" + vars[m[2:len(m)-1]] + "'"
	})
	srv.Exec(t, dbName, string(files["sql/postgres/schema.sql"]), users)

	open := func(role string) query.Endpoint {
		return query.Endpoint{Engine: query.Postgres, Addr: srv.Addr(), Database: dbName,
			User: vars[role+"_user"], Password: vars[role+"_password"], Params: "sslmode=disable"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := open("app").PostgresConfig()
	if err != nil {
		t.Fatal(err)
	}
	sink, err := generator.OpenPostgres(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	plans, err := generator.Compile(lab, lab.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Check(ctx, plans); err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Run(ctx, plans, sink, generator.Options{Logical: true, Count: 3000, Resume: true}); err != nil {
		t.Fatal(err)
	}

	e, err := query.Open(open("reader"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := func(what, sql string) *query.Result {
		t.Helper()
		res, err := e.Query(ctx, sql, query.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(res.Rows) == 0 {
			t.Errorf("%s: no rows", what)
		}
		return res
	}
	presets := 0
	for _, p := range lab.Presets {
		if p.Engine == schemas.EnginePostgres {
			run("preset "+p.Name, p.SQL)
			presets++
		}
	}
	// The query steps with their own SQL, a captured order ID filled in.
	orderID := run("an order", "SELECT max(order_id) AS id FROM orders").Rows[0][0]
	steps := 0
	for _, x := range lab.Experiments {
		for _, s := range x.Steps {
			if s.Query == nil || s.Query.Engine != schemas.EnginePostgres || s.Query.Preset != "" {
				continue
			}
			// A deferred template's readable text names what it captures:
			// <order_id from step pick>.
			sql := regexp.MustCompile(`<order_id from step \w+>`).ReplaceAllString(s.Query.SQL.Text, fmt.Sprint(orderID))
			// A captured "now" (the start of an experiment that follows
			// fresh orders): any time before the producer's.
			sql = regexp.MustCompile(`<now from step \w+>`).ReplaceAllString(sql, "1970-01-01 00:00:00.000")
			// A time read from ClickHouse (the Paimon audit's read): any
			// time after the producer's.
			sql = regexp.MustCompile(`<audited_at from step \w+>`).ReplaceAllString(sql, "2999-01-01 00:00:00.000")
			run("step "+x.Name+"."+s.Name, sql)
			steps++
		}
	}
	if presets < 3 || steps < 1 {
		t.Errorf("ran %d presets and %d steps on PostgreSQL, want 3 and 1", presets, steps)
	}

	// The reader's own rights: a plain connection, no read-only session.
	rcfg, err := pgx.ParseConfig(srv.URL(vars["reader_user"], vars["reader_password"], dbName))
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*rcfg)
	defer db.Close()
	for _, q := range []string{"DELETE FROM payments", "INSERT INTO orders (order_id) VALUES (-1)"} {
		if _, err := db.ExecContext(ctx, "BEGIN READ WRITE; "+q+"; COMMIT"); err == nil {
			t.Errorf("the reader may %s", q)
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM orders").Scan(&n); err != nil || n != 3000 {
		t.Errorf("%d orders (%v), want 3000", n, err)
	}
}
