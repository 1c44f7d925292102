package console

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// loadLab loads the seed lab from its HCL.
func loadLab(t *testing.T, vars ...schemas.VarArg) *schemas.Lab {
	t.Helper()
	p := schemas.NewParser()
	lab, diags := p.Load("../../labs/orders", schemas.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatalf("loading labs/orders: %s", diags.Error())
	}
	return lab
}

// fixture is the seed lab's MySQL and ClickHouse tables in throwaway
// servers, with a few rows, and a console on them as the read-only users.
type fixture struct {
	lab    *schemas.Lab
	my     *testsrv.MariaDBServer
	myDB   string
	myRoot *sql.DB
	ch     *testsrv.ClickHouseServer
	chDB   string
	srv    *Server
	url    string
}

// evilCategory is a value that would become an element (#pwn) and an
// ampersand if the page rendered values as HTML; it fits VARCHAR(32).
const evilCategory = `<b id="pwn">&amp;</b>`

func newFixture(t *testing.T, lab *schemas.Lab, lim query.Limits) *fixture {
	t.Helper()
	f := &fixture{lab: lab}
	f.my = testsrv.MariaDB(t)
	f.ch = testsrv.ClickHouse(t)

	// MySQL: the tables of the lab's mysql stores, in a fresh database.
	var dsn string
	f.myDB, dsn = f.my.NewDatabase(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.myRoot = db
	// ClickHouse: the presets name the lab's database (analytics) outright.
	f.chDB = lab.Stack.ClickHouse.Database
	f.ch.Exec(t, "CREATE DATABASE IF NOT EXISTS "+f.chDB)
	t.Cleanup(func() {
		if _, err := f.ch.Query(context.Background(), "", "", "DROP DATABASE IF EXISTS "+f.chDB); err != nil {
			t.Errorf("dropping %s: %v", f.chDB, err)
		}
	})
	for _, tb := range lab.Tables {
		for _, st := range tb.Stores {
			switch st.Kind {
			case schemas.StoreMySQL:
				f.myExec(t, mysqlDDL(tb, st))
			case schemas.StoreClickHouse:
				f.ch.Exec(t, clickhouseDDL(tb, st, f.chDB))
			}
		}
	}
	f.myExec(t, `INSERT INTO orders VALUES
		(1, 10, 'books', 12.50, 'PAID', '2026-01-01 10:00:00.000', '2026-01-01 10:00:40.000'),
		(2, 11, 'home', 99.99, 'FAILED', '2026-01-01 10:00:01.000', '2026-01-01 10:00:50.000'),
		(3, 12, 'electronics', 250.00, 'CREATED', '2026-01-01 10:00:02.000', '2026-01-01 10:00:02.000'),
		(4, 13, ?, 1.00, 'CREATED', '2026-01-01 10:00:03.000', '2026-01-01 10:00:03.000')`, evilCategory)
	f.myExec(t, `INSERT INTO payments VALUES
		(100, 1, 'PAID', 12.50, '2026-01-01 10:00:40.000', '2026-01-01 10:00:40.000'),
		(101, 2, 'FAILED', 99.99, NULL, '2026-01-01 10:00:50.000')`)
	f.ch.Exec(t, `INSERT INTO `+f.chDB+`.dwd_order_wide VALUES
		(1, 10, 'books', 12.50, 'CREATED', '', NULL, '2026-01-01 10:00:00', '2026-01-01 10:00:00'),
		(1, 10, 'books', 12.50, 'PAID', 'PAID', '2026-01-01 10:00:40', '2026-01-01 10:00:00', '2026-01-01 10:00:40'),
		(2, 11, 'home', 99.99, 'FAILED', 'FAILED', NULL, '2026-01-01 10:00:01', '2026-01-01 10:00:50'),
		(3, 12, 'electronics', 250.00, 'CREATED', '', NULL, '2026-01-01 10:00:02', '2026-01-01 10:00:02')`)
	f.ch.Exec(t, `INSERT INTO `+f.chDB+`.ads_hourly_sales VALUES
		('2026-01-01 10:00:00', 'books', 1, 1, 12.50, 12.50, '2026-01-01 11:00:00'),
		('2026-01-01 10:00:00', 'home', 1, 0, 99.99, 0, '2026-01-01 11:00:00')`)
	f.ch.Exec(t, `INSERT INTO `+f.chDB+`.lake_consistency_audit VALUES ('2026-01-01 10:05:00', 3, 3, 0)`)

	// The read-only users: SELECT on the lab's database (as the rendered
	// grants give MYSQL_READER_USER), and ClickHouse's readonly profile.
	user, pw := f.my.NewUser(t, "SELECT ON `"+f.myDB+"`.*")
	my, err := query.OpenMySQL(f.my.DSN(user, pw, f.myDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { my.Close() })
	ch, err := query.OpenClickHouse(query.ClickHouseOptions{Addr: f.ch.NativeAddr(), Database: f.chDB, User: testsrv.ClickHouseReadOnlyUser})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	f.srv, err = New(Config{Lab: lab, Engines: map[string]query.Engine{query.MySQL: my, query.ClickHouse: ch}, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(f.srv)
	t.Cleanup(hs.Close)
	f.url = hs.URL
	return f
}

func (f *fixture) myExec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := f.myRoot.ExecContext(tctx(t), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// mysqlDDL is a MySQL table for a lab table (as render would make it).
func mysqlDDL(tb *schemas.Table, st *schemas.Store) string {
	var cols []string
	for _, c := range tb.Columns {
		null := " NOT NULL"
		if c.Nullable {
			null = " NULL"
		}
		cols = append(cols, "`"+c.Name+"` "+c.Type.MySQL()+null)
	}
	cols = append(cols, "PRIMARY KEY (`"+strings.Join(tb.Key, "`, `")+"`)")
	return fmt.Sprintf("CREATE TABLE `%s` (\n%s\n)", st.Name, strings.Join(cols, ",\n"))
}

// clickhouseDDL is a ClickHouse table for a lab table in the subset
// ClickHouse 18.16 knows (DateTime for timestamps).
func clickhouseDDL(tb *schemas.Table, st *schemas.Store, db string) string {
	var cols []string
	for _, c := range tb.Columns {
		typ := c.Type.ClickHouse()
		if strings.HasPrefix(typ, "DateTime64") {
			typ = "DateTime"
		}
		if c.Nullable {
			typ = "Nullable(" + typ + ")"
		}
		cols = append(cols, c.Name+" "+typ)
	}
	return fmt.Sprintf("CREATE TABLE %s.%s (%s) ENGINE = ReplacingMergeTree(%s) ORDER BY (%s)",
		db, st.Name, strings.Join(cols, ", "), st.Version, strings.Join(tb.Key, ", "))
}

// snapshot is what must not change: row counts and the tables' columns.
func (f *fixture) snapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	rows, err := f.myRoot.QueryContext(tctx(t), "SELECT table_name, column_name, column_type FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position", f.myDB)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tn, cn, ct string
		if err := rows.Scan(&tn, &cn, &ct); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "mysql %s.%s %s\n", tn, cn, ct)
	}
	rows.Close()
	for _, tb := range f.lab.Tables {
		for _, st := range tb.Stores {
			switch st.Kind {
			case schemas.StoreMySQL:
				fmt.Fprintf(&b, "mysql %s:\n", st.Name)
				rows, err := f.myRoot.QueryContext(tctx(t), "SELECT * FROM `"+st.Name+"`")
				if err != nil {
					t.Fatal(err)
				}
				cols, _ := rows.Columns()
				for rows.Next() {
					vals := make([]sql.RawBytes, len(cols))
					ptrs := make([]any, len(cols))
					for i := range vals {
						ptrs[i] = &vals[i]
					}
					if err := rows.Scan(ptrs...); err != nil {
						t.Fatal(err)
					}
					for _, v := range vals {
						fmt.Fprintf(&b, "%q\t", v)
					}
					b.WriteString("\n")
				}
				rows.Close()
			case schemas.StoreClickHouse:
				fmt.Fprintf(&b, "clickhouse %s:\n", st.Name)
				b.WriteString(f.ch.Exec(t, "SELECT * FROM "+f.chDB+"."+st.Name+" ORDER BY "+strings.Join(columnNames(tb), ", ")))
			}
		}
	}
	b.WriteString("databases " + f.ch.Exec(t, "SELECT groupArray(name) FROM (SELECT name FROM system.databases ORDER BY name)"))
	return b.String()
}

func columnNames(tb *schemas.Table) []string {
	var out []string
	for _, c := range tb.Columns {
		out = append(out, c.Name)
	}
	return out
}

type apiResult struct {
	status int
	body   map[string]any
	raw    string
}

func post(t *testing.T, url, engine, sqlText string) apiResult {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"engine": engine, "sql": sqlText})
	return do(t, http.MethodPost, url+"/api/query", "application/json", bytes.NewReader(b))
}

func do(t *testing.T, method, url, ctype string, body io.Reader) apiResult {
	t.Helper()
	req, err := http.NewRequestWithContext(tctx(t), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := apiResult{status: resp.StatusCode, raw: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("%s %s: bad JSON %q: %v", method, url, raw, err)
		}
	}
	return r
}

func TestPresetsAPI(t *testing.T) {
	lab := loadLab(t)
	// A preset the stack cannot serve is listed with the reason.
	lab.Presets[len(lab.Presets)-1].Unavailable = "needs fluss, which the stack does not run"
	s, err := New(Config{Lab: lab, Unavailable: map[string]string{query.ClickHouse: "no ClickHouse credentials in .env"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	r := do(t, http.MethodGet, hs.URL+"/api/presets", "", nil)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	var got struct {
		Lab     map[string]string `json:"lab"`
		Engines []engineJSON      `json:"engines"`
		Presets []presetJSON      `json:"presets"`
		Limits  limitsJSON        `json:"limits"`
	}
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	if got.Lab["name"] != "orders" || got.Lab["title"] != lab.Title {
		t.Errorf("lab = %v", got.Lab)
	}
	wantEngines := []engineJSON{
		{Name: "mysql", Title: "MySQL", Unavailable: "the lab's stack has no MySQL"},
		{Name: "clickhouse", Title: "ClickHouse", Unavailable: "no ClickHouse credentials in .env"},
	}
	if !reflect.DeepEqual(got.Engines, wantEngines) {
		t.Errorf("engines = %+v, want %+v", got.Engines, wantEngines)
	}
	if len(got.Presets) != len(lab.Presets) {
		t.Fatalf("%d presets, want %d", len(got.Presets), len(lab.Presets))
	}
	for i, p := range lab.Presets {
		g := got.Presets[i]
		if g.Name != p.Name || g.Engine != p.Engine || g.Title != p.Title || g.Description != p.Description ||
			g.SQL != strings.TrimSpace(p.SQL) || g.Unavailable != p.Unavailable {
			t.Errorf("preset %d = %+v, want %+v", i, g, p)
		}
		if g.Title == "" || g.Description == "" {
			t.Errorf("preset %s has no title or description", p.Name)
		}
	}
	if got.Presets[len(got.Presets)-1].Unavailable == "" {
		t.Error("the unavailable preset is not marked")
	}
	if got.Limits.MaxRows != query.DefaultLimits.MaxRows || got.Limits.Timeout != "30s" {
		t.Errorf("limits = %+v", got.Limits)
	}
}

// expectedColumns of each preset of the seed lab.
var expectedColumns = map[string][]string{
	"latest_orders_with_payment": {"order_id", "order_status", "payment_status", "created_at", "paid_at"},
	"source_counts":              {"source_table", "status", "row_count"},
	"unpaid_orders":              {"order_id", "category", "order_amount", "created_at"},
	"latest_wide_orders":         {"order_id", "order_status", "payment_status", "order_amount", "updated_at"},
	"wide_status_counts":         {"payment_status", "orders", "amount"},
	"hourly_sales":               {"hour_bucket", "category", "order_count", "paid_order_count", "gmv", "paid_gmv"},
	"latest_lake_audit":          {"audit_time", "paimon_fluss_count", "iceberg_count", "count_delta"},
}

func TestEveryPresetRuns(t *testing.T) {
	f := newFixture(t, loadLab(t), query.Limits{})
	for _, p := range f.lab.Presets {
		t.Run(p.Name, func(t *testing.T) {
			r := post(t, f.url, p.Engine, p.SQL)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
			var res queryResponse
			if err := json.Unmarshal([]byte(r.raw), &res); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range res.Columns {
				names = append(names, c.Name)
				if c.Type == "" {
					t.Errorf("column %s has no type", c.Name)
				}
			}
			if want, ok := expectedColumns[p.Name]; !ok {
				t.Errorf("preset %s is new: add its columns to expectedColumns", p.Name)
			} else if !reflect.DeepEqual(names, want) {
				t.Errorf("columns %v, want %v", names, want)
			}
			if res.RowCount == 0 || res.RowCount != len(res.Rows) || res.Truncated {
				t.Errorf("row_count %d, %d rows, truncated %v", res.RowCount, len(res.Rows), res.Truncated)
			}
			if res.Elapsed == "" || res.ElapsedMS < 0 || res.Engine != p.Engine {
				t.Errorf("engine %q, elapsed %q (%v ms)", res.Engine, res.Elapsed, res.ElapsedMS)
			}
		})
	}
	// Spot checks of values: FINAL keeps one version per order, decimals
	// stay exact, NULL stays null.
	r := post(t, f.url, "clickhouse", "SELECT order_id, order_status, payment_status, order_amount FROM analytics.dwd_order_wide FINAL ORDER BY order_id")
	want := `"rows":[[1,"PAID","PAID",12.50],[2,"FAILED","FAILED",99.99],[3,"CREATED","",250.00]]`
	if !strings.Contains(r.raw, want) {
		t.Errorf("got %s, want rows %s", r.raw, want)
	}
	r = post(t, f.url, "mysql", "SELECT order_id, order_amount, paid_at FROM orders LEFT JOIN payments USING (order_id) WHERE order_id IN (2, 3) ORDER BY order_id")
	want = `"rows":[[2,99.99,null],[3,250.00,null]]`
	if !strings.Contains(r.raw, want) {
		t.Errorf("got %s, want rows %s", r.raw, want)
	}
}

// attempt is a statement the console must refuse; want is a fragment of
// the message.
type attempt struct{ engine, sql, want string }

func writeAttempts(outfile string) []attempt {
	return []attempt{
		{"mysql", "INSERT INTO orders VALUES (9, 1, 'x', 1, 'X', NOW(), NOW())", "only SELECT"},
		{"mysql", "INSERT INTO orders SELECT order_id + 100, customer_id, category, order_amount, order_status, created_at, updated_at FROM orders", "only SELECT"},
		{"mysql", "REPLACE INTO payments VALUES (100, 1, 'X', 0, NULL, NOW())", "only SELECT"},
		{"mysql", "UPDATE orders SET order_status = 'HACKED'", "only SELECT"},
		{"mysql", "update orders set order_status = 'HACKED'", "only SELECT"},
		{"mysql", "DELETE FROM payments", "only SELECT"},
		{"mysql", "/* a comment first */ DELETE FROM payments", "only SELECT"},
		{"mysql", "(DELETE FROM payments)", "only SELECT"},
		{"mysql", "WITH x AS (SELECT 1) DELETE FROM payments", "DELETE is refused"},
		{"mysql", "TRUNCATE TABLE orders", "only SELECT"},
		{"mysql", "DROP TABLE orders", "only SELECT"},
		{"mysql", "DROP DATABASE IF EXISTS test", "only SELECT"},
		{"mysql", "ALTER TABLE orders ADD COLUMN hacked INT", "only SELECT"},
		{"mysql", "CREATE TABLE hacked (id INT)", "only SELECT"},
		{"mysql", "CREATE TEMPORARY TABLE tmp AS SELECT * FROM orders", "only SELECT"},
		{"mysql", "RENAME TABLE orders TO orders_old", "only SELECT"},
		{"mysql", "GRANT ALL ON *.* TO CURRENT_USER", "only SELECT"},
		{"mysql", "SET GLOBAL read_only = 0", "only SELECT"},
		{"mysql", "SET SESSION TRANSACTION READ WRITE", "only SELECT"},
		{"mysql", "START TRANSACTION READ WRITE", "only SELECT"},
		{"mysql", "COMMIT", "only SELECT"},
		{"mysql", "LOCK TABLES orders WRITE", "only SELECT"},
		{"mysql", "FLUSH TABLES", "only SELECT"},
		{"mysql", "CALL mysql.hack()", "only SELECT"},
		{"mysql", "DO SLEEP(5)", "only SELECT"},
		{"mysql", "HANDLER orders OPEN", "only SELECT"},
		{"mysql", "LOAD DATA INFILE '/etc/hostname' INTO TABLE orders", "only SELECT"},
		{"mysql", "PREPARE s FROM 'DELETE FROM payments'", "only SELECT"},
		{"mysql", "SELECT * FROM orders INTO OUTFILE '" + outfile + "'", "INTO is refused"},
		{"mysql", "SELECT * FROM orders INTO DUMPFILE '" + outfile + "'", "INTO is refused"},
		{"mysql", "SELECT 1 /*! INTO OUTFILE '" + outfile + "' */", "executable comments"},
		{"mysql", "SELECT 1--1 INTO OUTFILE '" + outfile + "'", "INTO is refused"},
		{"mysql", "SELECT 1 AS `x\\` INTO OUTFILE '" + outfile + "' #`", "INTO is refused"},
		{"mysql", "SELECT 1.5INTO @v", "INTO is refused"},
		{"mysql", "SELECT * FROM orders FOR UPDATE", "FOR is refused"},
		{"mysql", "SELECT * FROM orders LOCK IN SHARE MODE", "LOCK is refused"},
		{"mysql", "SELECT LOAD_FILE('/etc/passwd')", "load_file(…) is refused"},
		{"mysql", "SELECT SLEEP(60)", "sleep(…) is refused"},
		{"mysql", "SELECT GET_LOCK('console', 60)", "get_lock(…) is refused"},
		{"mysql", "SELECT 1; DELETE FROM payments", "only one statement"},
		{"mysql", "SELECT 1;\nDROP TABLE orders;", "only one statement"},
		{"mysql", "SELECT 1 # \x00\nDELETE FROM payments", "NUL character"},
		{"mysql", "SHUTDOWN", "only SELECT"},
		{"mysql", "KILL CONNECTION_ID()", "only SELECT"},
		{"mysql", "USE mysql", "only SELECT"},
		{"mysql", "", "no statement"},
		{"mysql", "SELECT 'unclosed", "not closed"},
		{"clickhouse", "INSERT INTO analytics.dwd_order_wide SELECT * FROM analytics.dwd_order_wide", "only SELECT"},
		{"clickhouse", "INSERT INTO analytics.lake_consistency_audit VALUES (now(), 0, 0, 0)", "only SELECT"},
		{"clickhouse", "ALTER TABLE analytics.dwd_order_wide DELETE WHERE 1", "only SELECT"},
		{"clickhouse", "ALTER TABLE analytics.dwd_order_wide UPDATE order_status = 'X' WHERE 1", "only SELECT"},
		{"clickhouse", "ALTER TABLE analytics.dwd_order_wide DROP COLUMN category", "only SELECT"},
		{"clickhouse", "TRUNCATE TABLE analytics.dwd_order_wide", "only SELECT"},
		{"clickhouse", "DROP TABLE analytics.dwd_order_wide", "only SELECT"},
		{"clickhouse", "DROP DATABASE analytics", "only SELECT"},
		{"clickhouse", "DETACH TABLE analytics.dwd_order_wide", "only SELECT"},
		{"clickhouse", "RENAME TABLE analytics.dwd_order_wide TO analytics.old", "only SELECT"},
		{"clickhouse", "CREATE TABLE analytics.hacked (x UInt8) ENGINE = Memory", "only SELECT"},
		{"clickhouse", "OPTIMIZE TABLE analytics.dwd_order_wide FINAL", "only SELECT"},
		{"clickhouse", "SET readonly = 0", "only SELECT"},
		{"clickhouse", "SYSTEM STOP MERGES", "only SELECT"},
		{"clickhouse", "KILL QUERY WHERE 1", "only SELECT"},
		{"clickhouse", "SELECT * FROM analytics.dwd_order_wide SETTINGS readonly = 0", "SETTINGS is refused"},
		{"clickhouse", "SELECT * FROM file('/etc/passwd', 'TSV', 's String')", "file(…) is refused"},
		{"clickhouse", "SELECT * FROM url('http://127.0.0.1:1/', CSV, 'x String')", "url(…) is refused"},
		{"clickhouse", "SELECT * FROM `url`('http://127.0.0.1:1/', CSV, 'x String')", "url(…) is refused"},
		{"clickhouse", "SELECT * FROM remote('127.0.0.1', system.one)", "remote(…) is refused"},
		{"clickhouse", "SELECT * FROM mysql('127.0.0.1:3306', 'db', 't', 'u', 'p')", "mysql(…) is refused"},
		{"clickhouse", "SELECT $$ ' $$, * FROM url('http://127.0.0.1:1/', CSV, 'a String') -- '", "url(…) is refused"},
		{"clickhouse", "SELECT sleepEachRow(1) FROM numbers(100)", "sleepeachrow(…) is refused"},
		{"clickhouse", "SELECT 1 INTO OUTFILE '" + outfile + "'", "INTO is refused"},
		{"clickhouse", "SELECT 1; DROP TABLE analytics.dwd_order_wide", "only one statement"},
	}
}

func TestWritesAndEscapesAreRefused(t *testing.T) {
	f := newFixture(t, loadLab(t), query.Limits{})
	before := f.snapshot(t)
	outfile := filepath.Join(t.TempDir(), "out.txt")
	for _, a := range writeAttempts(outfile) {
		r := post(t, f.url, a.engine, a.sql)
		msg, _ := r.body["error"].(string)
		if r.status != http.StatusForbidden || r.body["kind"] != "refused" {
			t.Errorf("%s %q: status %d %s, want 403 refused", a.engine, a.sql, r.status, r.raw)
			continue
		}
		if !strings.HasPrefix(msg, "Refused: ") || !strings.Contains(msg, a.want) {
			t.Errorf("%s %q: message %q, want it to say %q", a.engine, a.sql, msg, a.want)
		}
	}
	if after := f.snapshot(t); after != before {
		t.Errorf("the data changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(outfile); err == nil {
		t.Errorf("%s was written", outfile)
	}
	// Reads the read-only users may not do fail in the database, verbatim.
	for _, a := range []attempt{
		{"mysql", "SELECT * FROM mysql.user", "denied"},
		{"clickhouse", "SELECT * FROM analytics.nope", "doesn't exist"},
	} {
		r := post(t, f.url, a.engine, a.sql)
		if msg, _ := r.body["error"].(string); r.status != http.StatusUnprocessableEntity || !strings.Contains(msg, a.want) {
			t.Errorf("%s %q: status %d %s, want 422 saying %q", a.engine, a.sql, r.status, r.raw, a.want)
		}
	}
}

// With the statement check switched off, the read-only sessions and users
// alone still refuse every write: a statement that slips past the parser
// cannot change anything.
func TestDatabaseRefusesWhatSlipsPastTheCheck(t *testing.T) {
	f := newFixture(t, loadLab(t), query.Limits{Timeout: 5 * time.Second})
	f.srv.check = func(engine, sql string) error { return nil }
	before := f.snapshot(t)
	outfile := filepath.Join(t.TempDir(), "out.txt")
	for _, a := range writeAttempts(outfile) {
		switch {
		case strings.Contains(a.sql, "SHUTDOWN"), strings.HasPrefix(a.sql, "KILL"), strings.Contains(strings.ToUpper(a.sql), "SLEEP"),
			strings.Contains(a.sql, "GET_LOCK"), a.want == "not closed", a.want == "no statement":
			continue // would hold the server, or is not SQL at all
		}
		r := post(t, f.url, a.engine, a.sql)
		if r.status == http.StatusOK {
			// Harmless reads are fine (FOR UPDATE in a read-only
			// transaction, a comment, a session variable); the snapshot
			// below is the judge. Writes must fail.
			up := strings.ToUpper(strings.TrimSpace(a.sql))
			for _, w := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE", "DROP", "ALTER", "CREATE", "TRUNCATE", "RENAME", "GRANT", "OPTIMIZE", "DETACH"} {
				if strings.HasPrefix(up, w) {
					t.Errorf("%s %q: the database ran it: %s", a.engine, a.sql, r.raw)
				}
			}
			continue
		}
		t.Logf("%s %q: %d %v", a.engine, a.sql, r.status, r.body["error"])
	}
	if after := f.snapshot(t); after != before {
		t.Errorf("the data changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(outfile); err == nil {
		t.Errorf("%s was written", outfile)
	}
}

func TestAPIErrors(t *testing.T) {
	lab := loadLab(t)
	f := newFixture(t, lab, query.Limits{})
	// A console without ClickHouse.
	only, err := New(Config{Lab: lab, Engines: map[string]query.Engine{query.MySQL: f.srv.cfg.Engines[query.MySQL]},
		Unavailable: map[string]string{query.ClickHouse: "no ClickHouse reader in .env"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(only)
	defer hs.Close()

	body := func(s string) io.Reader { return strings.NewReader(s) }
	for _, c := range []struct {
		name           string
		r              apiResult
		status         int
		kind, contains string
	}{
		{"unknown engine", post(t, f.url, "oracle", "SELECT 1"), 400, "unknown_engine", `unknown engine "oracle"`},
		{"no engine", post(t, f.url, "", "SELECT 1"), 400, "unknown_engine", "unknown engine"},
		{"unknown engine with a write", post(t, f.url, "sqlite", "DROP TABLE orders"), 400, "unknown_engine", "unknown engine"},
		{"bad JSON", do(t, "POST", f.url+"/api/query", "application/json", body(`{"engine": "mysql", "sql": `)), 400, "bad_request", "the body must be"},
		{"unknown field", do(t, "POST", f.url+"/api/query", "application/json", body(`{"engine": "mysql", "sql": "SELECT 1", "unsafe": true}`)), 400, "bad_request", "unknown field"},
		{"two objects", do(t, "POST", f.url+"/api/query", "application/json", body(`{"engine": "mysql", "sql": "SELECT 1"} {}`)), 400, "bad_request", "one JSON object"},
		{"form post", do(t, "POST", f.url+"/api/query", "application/x-www-form-urlencoded", body(`engine=mysql&sql=SELECT+1`)), 415, "bad_request", "Content-Type: application/json"},
		{"text post", do(t, "POST", f.url+"/api/query", "text/plain", body(`{"engine": "mysql", "sql": "SELECT 1"}`)), 415, "bad_request", "application/json"},
		{"too large", post(t, f.url, "mysql", "SELECT '"+strings.Repeat("x", maxBody)+"'"), 413, "too_large", "larger than"},
		{"long SQL", post(t, f.url, "mysql", "SELECT '"+strings.Repeat("x", maxSQL)+"'"), 413, "too_large", "longer than"},
		{"unavailable engine", post(t, hs.URL, "clickhouse", "SELECT 1"), 409, "unavailable", "ClickHouse is not available: no ClickHouse reader in .env"},
		{"database error", post(t, f.url, "mysql", "SELECT nope FROM orders"), 422, "query", "Unknown column 'nope'"},
		{"clickhouse error", post(t, f.url, "clickhouse", "SELECT nope FROM analytics.dwd_order_wide"), 422, "query", "nope"},
		{"GET query", do(t, "GET", f.url+"/api/query", "", nil), 405, "method", "takes POST"},
		{"unknown API", do(t, "GET", f.url+"/api/tables", "", nil), 404, "not_found", "not part of the console API"},
	} {
		msg, _ := c.r.body["error"].(string)
		if c.r.status != c.status || c.kind != "" && c.r.body["kind"] != c.kind || !strings.Contains(msg, c.contains) {
			t.Errorf("%s: got %d %.300s, want %d %s containing %q", c.name, c.r.status, c.r.raw, c.status, c.kind, c.contains)
		}
	}

	// DNS rebinding: a name other than localhost is refused, an IP or
	// localhost is served.
	for host, want := range map[string]int{"evil.example:8088": 421, "localhost:8088": 200, "127.0.0.1:8088": 200, "[::1]:8088": 200, "app.localhost": 200} {
		req, _ := http.NewRequest("GET", f.url+"/api/presets", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}

func TestLimitsAndTimeout(t *testing.T) {
	f := newFixture(t, loadLab(t), query.Limits{MaxRows: 2, Timeout: 1500 * time.Millisecond})
	for _, engine := range []string{"mysql", "clickhouse"} {
		table := map[string]string{"mysql": "orders", "clickhouse": "analytics.dwd_order_wide"}[engine]
		r := post(t, f.url, engine, "SELECT * FROM "+table)
		if r.status != 200 || r.body["row_count"] != 2.0 || r.body["truncated"] != true || len(r.body["rows"].([]any)) != 2 {
			t.Errorf("%s: got %d %s, want 2 rows, truncated", engine, r.status, r.raw)
		}
	}
	start := time.Now()
	for engine, q := range map[string]string{
		"mysql":      "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b, seq_1_to_1000 c",
		"clickhouse": "SELECT count() FROM system.numbers",
	} {
		r := post(t, f.url, engine, q)
		if msg, _ := r.body["error"].(string); r.status != 504 || r.body["kind"] != "timeout" || !strings.Contains(msg, "1.5s") {
			t.Errorf("%s endless query: got %d %s, want 504 timeout naming 1.5s", engine, r.status, r.raw)
		}
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("two queries with a 1.5s limit took %s", d)
	}
}

func TestOutputIsEscapedAndLocal(t *testing.T) {
	f := newFixture(t, loadLab(t), query.Limits{})
	r := post(t, f.url, "mysql", "SELECT category FROM orders WHERE order_id = 4")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	if strings.ContainsAny(r.raw, "<>") {
		t.Errorf("the JSON carries raw < or >: %s", r.raw)
	}
	if got := r.body["rows"].([]any)[0].([]any)[0]; got != evilCategory {
		t.Errorf("value %q, want %q unchanged", got, evilCategory)
	}
	// The page: nothing from another origin, no inline script, values set
	// as text only.
	for _, path := range []string{"/", "/static/app.js", "/static/style.css"} {
		resp, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", path, resp.StatusCode)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		text := string(b)
		for _, bad := range []string{"http://", "https://", "//cdn", "@import", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
			if strings.Contains(text, bad) {
				t.Errorf("%s contains %q", path, bad)
			}
		}
		if path == "/" && strings.Contains(text, "<script>") {
			t.Errorf("the page has an inline script")
		}
	}
}
