package sqlread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	mysql      = "mysql"
	clickhouse = "clickhouse"
	both       = "both"
)

func engines(e string) []string {
	if e == both {
		return []string{mysql, clickhouse}
	}
	return []string{e}
}

func TestAllowed(t *testing.T) {
	for _, c := range []struct{ engine, sql string }{
		{both, "SELECT 1"},
		{both, "select 1;"},
		{both, "  SELECT 1 ;  "},
		{both, "SELECT 1;\n-- trailing comment\n"},
		{both, "SELECT order_id, status FROM orders WHERE status = 'PAID' ORDER BY order_id DESC LIMIT 10"},
		{both, "SELECT 1 -- ; DROP TABLE x"},
		{both, "SELECT 1 --\tDROP TABLE x"},
		{both, "SELECT 1 --"},
		{both, "SELECT ';DROP'"},
		{both, "SELECT 'DROP TABLE x; DELETE FROM y'"},
		{both, "SELECT 'it''s', 'a\\'b; DROP TABLE x'"},
		{both, "SELECT /* DROP TABLE x; */ 1"},
		{both, "SELECT /* multi\nline; INSERT */ 1 /**/"},
		{both, "SELECT `select`, `drop`, `insert into` FROM `t`"},
		{both, "SELECT `a``b` FROM t"},
		{both, "SHOW CREATE TABLE orders"},
		{both, "SHOW TABLES"},
		{both, "DESCRIBE orders"},
		{both, "DESC orders"},
		{both, "EXPLAIN SELECT * FROM orders"},
		{both, "WITH recent AS (SELECT * FROM orders) SELECT COUNT(*) FROM recent"},
		{both, "(SELECT 1) UNION ALL (SELECT 2)"},
		{both, "((SELECT 1))"},
		{both, "SELECT o.order_id, p.payment_id FROM orders o LEFT JOIN payments p ON o.order_id = p.order_id"},
		{both, "SELECT 1.5e3, 0x1F, .5, 1e-3"},
		{both, "SELECT COUNT(*) AS n FROM orders WHERE created_at > NOW() - INTERVAL 1 HOUR"},
		{both, "SELECT 'insert' AS word, \"into\" AS other"},
		{both, "SELECT date_format(created_at, '%Y-%m-%d %H:00') AS hour FROM orders"},
		{mysql, "SELECT 1 # DROP TABLE x"},
		{mysql, "SELECT \"DROP TABLE x; DELETE FROM y\""}, // a string in MySQL
		{mysql, "SELECT 1 /*+ MAX_EXECUTION_TIME(1000) */"},
		{clickhouse, "SELECT * FROM analytics.dwd_order_wide FINAL ORDER BY updated_at DESC LIMIT 10"},
		{clickhouse, "SELECT 1 --1; DROP TABLE x"},     // -- always starts a comment in ClickHouse
		{clickhouse, "SELECT $$; DROP TABLE t$$"},      // a heredoc string
		{clickhouse, "SELECT $tag$ it's $ fine $tag$"}, // heredoc with a tag
		{clickhouse, "SELECT `a\\`b` FROM t"},          // ClickHouse escapes a backtick
		{clickhouse, "SELECT count() FROM t FORMAT JSON"},
		{clickhouse, "SELECT toStartOfHour(created_at) AS h, count() FROM t GROUP BY h"},
		{clickhouse, "SELECT 1 # a comment"},
	} {
		for _, e := range engines(c.engine) {
			if err := Check(e, c.sql); err != nil {
				t.Errorf("%s: %q refused: %v", e, c.sql, err)
			}
		}
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct{ engine, sql, reason string }{
		{both, "", "there is no statement"},
		{both, "  ;", "there is no statement"},
		{both, "-- only a comment", "there is no statement"},
		{both, "DROP TABLE orders", "starts with DROP"},
		{both, "drop table orders", "starts with DROP"},
		{both, "INSERT INTO t VALUES (1)", "starts with INSERT"},
		{both, "INSERT INTO t SELECT * FROM u", "starts with INSERT"},
		{both, "DELETE FROM orders", "starts with DELETE"},
		{both, "UPDATE orders SET status = 'x'", "starts with UPDATE"},
		{both, "REPLACE INTO t VALUES (1)", "starts with REPLACE"},
		{both, "TRUNCATE TABLE t", "starts with TRUNCATE"},
		{both, "CREATE TABLE t (a INT)", "starts with CREATE"},
		{both, "ALTER TABLE t ADD COLUMN b INT", "starts with ALTER"},
		{both, "SET max_threads = 1", "starts with SET"},
		{both, "USE analytics", "starts with USE"},
		{both, "CALL p()", "starts with CALL"},
		{both, "KILL QUERY 1", "starts with KILL"},
		{both, "'SELECT 1'", "starts with"},
		{both, "SELECT 1; SELECT 2", "only one statement"},
		{both, "SELECT 1; DROP TABLE x", "only one statement"},
		{both, "SELECT 1;;", "only one statement"},
		{both, "SELECT 1 /* harmless */; DELETE FROM orders", "only one statement"},
		{both, "SELECT 1 -- comment\n; DROP TABLE x", "only one statement"},
		{both, "SELECT * FROM orders INTO OUTFILE '/tmp/orders.csv'", "INTO is refused"},
		{both, "SELECT * INTO @v FROM orders", "INTO is refused"},
		{both, "SELECT 1 INTO DUMPFILE '/tmp/x'", "INTO is refused"},
		{both, "SELECT count() FROM t SETTINGS max_threads = 64", "SETTINGS is refused"},
		{both, "SELECT * FROM orders FOR UPDATE", "FOR is refused"},
		{both, "SELECT * FROM orders LOCK IN SHARE MODE", "LOCK is refused"},
		{both, "EXPLAIN ANALYZE SELECT * FROM orders", "ANALYZE is refused"},
		{both, "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "DELETE is refused"},
		{both, "SELECT load_file('/etc/passwd')", "load_file(…) is refused"},
		{both, "SELECT LOAD_FILE ('/etc/passwd')", "load_file(…) is refused"},
		{both, "SELECT * FROM url('http://example.com/x.csv', CSV, 'a String')", "url(…) is refused"},
		{both, "SELECT * FROM file('/etc/passwd', 'LineAsString')", "file(…) is refused"},
		{both, "SELECT * FROM s3('https://bucket/x', 'CSV')", "s3(…) is refused"},
		{both, "SELECT * FROM remote('other:9000', db, t)", "remote(…) is refused"},
		{both, "SELECT * FROM mysql('host:3306', 'db', 't', 'u', 'p')", "mysql(…) is refused"},
		{both, "SELECT sleep(10)", "sleep(…) is refused"},
		{both, "SELECT benchmark(100000000, md5('x'))", "benchmark(…) is refused"},
		{both, "SELECT GET_LOCK('a', 10)", "get_lock(…) is refused"},
		{both, "SELECT 'unclosed", "not closed"},
		{both, "SELECT `unclosed", "not closed"},
		{both, "SELECT 1 /* unclosed", "not closed"},
		{both, "SELECT 1 /*! ; DROP TABLE x */", "executable comments"},
		{both, "SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "executable comments"},
		{both, "SELECT 1 /*M! ; DROP TABLE x */", "executable comments"},
		{both, "SELECT 1\x00; DROP TABLE x", "NUL"},
		// MySQL starts a -- comment only before whitespace: 1--1 is 1 - -1,
		// so what follows is code.
		{mysql, "SELECT 1 --1; DROP TABLE x", "only one statement"},
		{mysql, "SELECT 1--1 INTO OUTFILE '/tmp/x'", "INTO is refused"},
		// MySQL's backticks have no backslash escape: the name ends at the
		// second backtick and the DROP is code.
		{mysql, "SELECT `a\\`; DROP TABLE t; SELECT `b`", "only one statement"},
		// Optimizer hints are read as code; SET_VAR changes settings.
		{mysql, "SELECT /*+ SET_VAR(sort_buffer_size = 16M) */ 1", "refused"},
		// # is a comment in ClickHouse only before a space or '!'.
		{clickhouse, "SELECT 1 #x; DROP TABLE t", "only one statement"},
		// A ClickHouse table function written as a quoted name.
		{clickhouse, "SELECT * FROM `url`('http://example.com/x', CSV)", "url(…) is refused"},
		// A heredoc is a string only in ClickHouse.
		{mysql, "SELECT $$; DROP TABLE t$$", "only one statement"},
	} {
		for _, e := range engines(c.engine) {
			err := Check(e, c.sql)
			if err == nil {
				t.Errorf("%s: %q allowed, want refused (%s)", e, c.sql, c.reason)
				continue
			}
			var r *Refusal
			if !errors.As(err, &r) {
				t.Errorf("%s: %q: %T is not a *Refusal", e, c.sql, err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Errorf("%s: %q refused with %q, want it to say %q", e, c.sql, err, c.reason)
			}
		}
	}
}

// TestEngineWording checks that refusals name the engine.
func TestEngineWording(t *testing.T) {
	for engine, name := range map[string]string{mysql: "MySQL", clickhouse: "ClickHouse"} {
		err := Check(engine, "DROP TABLE t")
		if err == nil || !strings.Contains(err.Error(), "allowed on "+name) {
			t.Errorf("%s: %v", engine, err)
		}
	}
}

// TestUnknownEngine: text for an engine Check does not know must pass
// the rules of both.
func TestUnknownEngine(t *testing.T) {
	if err := Check("other", "SELECT 1"); err != nil {
		t.Errorf("SELECT 1: %v", err)
	}
	for _, sql := range []string{"SELECT 1 --1; DROP TABLE x", "SELECT 1 #x; DROP TABLE t", "SELECT $$; DROP TABLE t$$"} {
		if Check("other", sql) == nil {
			t.Errorf("%q allowed for an unknown engine; one of the dialects reads more statements", sql)
		}
	}
}

// TestSeedPresets: every preset of the seed lab reads only.
func TestSeedPresets(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "labs", "orders", "presets", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed presets: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Read both ways: a preset passes on either engine's reading.
		if err := Check("other", string(b)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// FuzzCheck: the checker never panics, and whatever it allows is one
// statement that starts with a read.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT ';DROP'", "SELECT 1 -- x\n", "/*! x */", "SELECT `a\\`", "SELECT $a$ x $a$", "SHOW CREATE TABLE t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, e := range []string{mysql, clickhouse, "other"} {
			if Check(e, sql) != nil {
				continue
			}
			up := strings.ToUpper(sql)
			if !strings.Contains(up, "SELECT") && !strings.Contains(up, "SHOW") && !strings.Contains(up, "DESC") && !strings.Contains(up, "EXPLAIN") {
				t.Errorf("%s: %q allowed without a reading keyword", e, sql)
			}
		}
	})
}

// TestPostgresDialect: PostgreSQL's text is split as its server splits
// it (nested comments, E'…' strings, dollar quotes, no # comments).
func TestPostgresDialect(t *testing.T) {
	for _, sql := range []string{
		`SELECT 'it''s', "Order" FROM t WHERE a = E'x\'y' AND b = 'back\'`,
		"SELECT $$DROP TABLE t$$ AS text",
		"SELECT 1 /* a /* nested */ comment */",
		"SELECT a#b FROM t",
		"SELECT created_at::date, count(*) FROM orders GROUP BY 1",
	} {
		if err := Check("postgres", sql); err != nil {
			t.Errorf("%q refused: %v", sql, err)
		}
	}
	for _, sql := range []string{
		// Nested: the ' is inside the comment, so DELETE is code.
		"SELECT 1 /* /* */ ' */ DELETE FROM t; -- '",
		// Standard strings end at the second quote: DROP is code.
		`SELECT 'a\'; DROP TABLE t; --'`,
		"SELECT pg_sleep(10)",
		"SELECT set_config('default_transaction_read_only', 'off', false)",
		"SELECT query_to_xml('DELETE FROM t', true, true, '')",
		"SELECT pg_read_file('/etc/passwd')",
		"COPY t TO '/tmp/x'",
		"SELECT * FROM t FOR UPDATE",
	} {
		if err := Check("postgres", sql); err == nil {
			t.Errorf("%q allowed", sql)
		}
	}
	if err := Check("postgres", "DROP TABLE t"); err == nil || !strings.Contains(err.Error(), "allowed on PostgreSQL") {
		t.Errorf("DROP: %v", err)
	}
}
