package schemas

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

const undeclaredTable = "Query reads an undeclared table"

// TestUndeclaredSQLTablesDetail: the fixture's errors point at the table
// itself (the third line of a preset's SQL file) and suggest the
// declared name, written the way the query wrote it.
func TestUndeclaredSQLTablesDetail(t *testing.T) {
	_, diags := NewParser().Load(filepath.Join("testdata", "invalid", "undeclared_sql_tables"), Options{})
	want := map[string]string{
		"lab.hcl:31,33":       "Preset wide_typo names analytics.order_wid, but no table of this lab has a ClickHouse store called so (unqualified names are in analytics). Did you mean analytics.order_wide?",
		"joined_typo.sql:3,6": "The lab's MySQL tables are shop.orders.",
		"lab.hcl:43,27":       "The lab's PostgreSQL tables are public.payments.",
		"lab.hcl:52,30":       "The SQL of step typo names order_wid, but no table of this lab has a ClickHouse store called so (unqualified names are in analytics). Did you mean order_wide?",
		// A template's text is not the source's: the error is at the
		// expression.
		"lab.hcl:64,14": "The SQL of step deferred names public.payment, but no table of this lab has a PostgreSQL store called so (unqualified names are in public). Did you mean public.payments?",
	}
	got := map[string]string{}
	for _, d := range diags {
		if d.Summary == undeclaredTable && d.Subject != nil {
			got[fmt.Sprintf("%s:%d,%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)] = d.Detail
		}
	}
	for at, detail := range want {
		if !strings.Contains(got[at], detail) {
			t.Errorf("at %s: detail %q, want it to contain %q (got %v)", at, got[at], detail, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(got), len(want), got)
	}
}

// sqlTablesLab is a lab with a table on each engine and one preset per
// case.
func sqlTablesLab(cases [][2]string) string {
	var b strings.Builder
	b.WriteString(`lab "l" {
  title = "L"
}
stack {
  mysql {}
  postgres {}
  kafka {}
  clickhouse {}
}
table "orders" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "mysql" {}
}
table "payments" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "postgres" {}
}
table "order_wide" {
  key = ["id"]
  column "id" { type = "bigint" }
  store "kafka" {}
  store "clickhouse" { ingest = "kafka" }
}
`)
	for i, c := range cases {
		fmt.Fprintf(&b, "preset \"p%d\" {\n  engine = %q\n  sql = %s\n}\n", i, c[0], strconv.Quote(c[1]))
	}
	return b.String()
}

// TestSQLTablesNotReported: common table expressions (also inside a
// subquery), subqueries, the servers' own tables, table functions, the
// tables labgen renders besides the lab's, qualified and quoted names,
// FROMs that name no table, and text the reader cannot read reliably.
func TestSQLTablesNotReported(t *testing.T) {
	cases := [][2]string{
		{"mysql", "WITH recent AS (SELECT id FROM orders) SELECT * FROM recent"},
		{"mysql", "SELECT * FROM (WITH r AS (SELECT id FROM orders) SELECT id FROM r) AS s JOIN orders ON orders.id = s.id"},
		{"mysql", "SELECT * FROM (SELECT id FROM orders) AS sub, orders o WHERE o.id = sub.id"},
		{"mysql", "SELECT table_name FROM information_schema.tables"},
		{"mysql", "SELECT * FROM performance_schema.threads"},
		{"mysql", "SELECT user FROM mysql.user"},
		{"mysql", "SELECT 1 FROM dual"},
		{"mysql", "SELECT * FROM `shop`.`orders`"},
		{"mysql", "SELECT * FROM SHOP.Orders"},
		{"mysql", "SELECT 'a\\' FROM nope' FROM orders"},
		{"mysql", "SELECT 1 FROM orders # FROM nope"},
		{"postgres", "WITH x (id) AS MATERIALIZED (SELECT id FROM payments) SELECT * FROM x"},
		{"postgres", "SELECT * FROM pg_stat_activity"},
		{"postgres", "SELECT * FROM pg_catalog.pg_tables"},
		{"postgres", "SELECT * FROM shop.public.payments"},
		{"postgres", "SELECT * FROM \"payments\""},
		{"postgres", "SELECT g FROM generate_series(1, 3) AS g"},
		{"postgres", "SELECT id FROM payments WHERE id IS DISTINCT FROM 1"},
		{"postgres", "SELECT EXTRACT(YEAR FROM now()), SUBSTRING('abc' FROM 2)"},
		{"postgres", "SELECT $$ FROM nope $$"},
		{"postgres", "SELECT 1 /* a /* nested */ FROM nope */ FROM payments"},
		{"clickhouse", "SELECT * FROM system.parts"},
		{"clickhouse", "SELECT number FROM numbers(10)"},
		{"clickhouse", "SELECT count() FROM analytics.order_wide FINAL"},
		{"clickhouse", "SELECT x FROM order_wide ARRAY JOIN [1, 2] AS x"},
		{"clickhouse", "SELECT * FROM INFORMATION_SCHEMA.COLUMNS"},
		{"clickhouse", "SELECT * FROM analytics.order_wide_queue"},
		{"clickhouse", "SHOW TABLES FROM analytics"},
	}
	// A captured value that is part of a name leaves the name unknown.
	steps := `experiment "e" {
  number = 1
  title  = "E"
  step "pick" {
    engine  = "mysql"
    sql     = "SELECT 'x' AS suffix"
    capture = { suffix = result.rows[0].suffix }
  }
  step "part" {
    engine = "mysql"
    sql    = "SELECT * FROM orders_${step.pick.suffix} WHERE id = ${step.pick.suffix}"
  }
}
`
	for _, d := range loadSource(t, sqlTablesLab(cases)+steps) {
		if d.Severity == hcl.DiagError || d.Summary == undeclaredTable {
			t.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
}

// TestSQLTablesAfterBrokenTable: a table whose block has errors (here an
// invalid name) is missing from the lab, and a query naming it is not
// reported again: one mistake, one error.
func TestSQLTablesAfterBrokenTable(t *testing.T) {
	src := strings.Replace(sqlTablesLab([][2]string{{"mysql", "SELECT * FROM orders"}}), `table "orders" {`, `table "Orders-x" {`, 1)
	diags := loadSource(t, src)
	if !diags.HasErrors() {
		t.Fatal("the broken table loaded without errors")
	}
	for _, d := range diags {
		if d.Summary == undeclaredTable {
			t.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
}

// TestSQLTablesReported: a misspelt database is as wrong as a misspelt
// table.
func TestSQLTablesReported(t *testing.T) {
	cases := [][2]string{
		{"clickhouse", "SELECT * FROM analytic.order_wide"},
		{"mysql", "WITH recent AS (SELECT id FROM order) SELECT * FROM recent"},
		{"postgres", "SELECT * FROM payments p JOIN refunds r ON r.id = p.id"},
	}
	want := []string{"Did you mean analytics.order_wide?", "Did you mean orders?", "names refunds"}
	var got []string
	for _, d := range loadSource(t, sqlTablesLab(cases)) {
		if d.Summary == undeclaredTable {
			got = append(got, d.Detail)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("error %d: %q, want it to contain %q", i, got[i], want[i])
		}
	}
}
