package sqlread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/labgen/labgen/sqlread"
)

// consoleCase is a text typed into the query console. want is "" for a
// statement that must pass, else a fragment of the refusal.
type consoleCase struct {
	engine, sql, want string
}

// Reads the console must let through, in the dialect of each engine.
var consoleReads = []consoleCase{
	{"mysql", "SELECT 1", ""},
	{"mysql", "select * from orders where note = 'INSERT INTO x' -- DROP later", ""},
	{"mysql", "SELECT 1 # DELETE FROM t", ""},
	{"mysql", "SELECT 'It\\'s', \"a \\\" b\", `col``name` FROM t", ""},
	{"mysql", "SELECT 1 /* DROP TABLE t */ + 2", ""},
	{"mysql", "SELECT 1e5, 1.5e-3, 0x1F, 0b101, .5", ""},
	{"mysql", "SELECT 1 - -1", ""},
	{"mysql", "SELECT 1--\n", ""},
	{"mysql", "SELECT 1 -- comment\n FROM dual;", ""},
	{"mysql", "WITH x AS (SELECT 1 AS a) SELECT a FROM x", ""},
	{"mysql", "(SELECT 1) UNION ALL (SELECT 2)", ""},
	{"mysql", "SHOW CREATE TABLE orders", ""},
	{"mysql", "EXPLAIN SELECT * FROM orders", ""},
	{"mysql", "DESCRIBE orders", ""},
	{"mysql", "SELECT 1 AS `order`", ""},
	{"mysql", "SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1", ""},
	{"clickhouse", "SELECT count() FROM analytics.dwd_order_wide FINAL", ""},
	{"clickhouse", "SELECT `a\\`b` FROM t", ""},
	{"clickhouse", "SELECT \"col\" FROM t FORMAT JSON", ""},
	{"clickhouse", "SELECT $$ DROP TABLE t $$", ""},
	{"clickhouse", "SELECT 1 --no space needed\n", ""},
	{"clickhouse", "SELECT 1 # a comment in current ClickHouse", ""},
	{"clickhouse", "SELECT toUInt64(1), [1, 2], (1, 'x') ", ""},
	{"clickhouse", "SHOW TABLES FROM analytics", ""},
	{"clickhouse", "SELECT name FROM system.tables WHERE database = 'analytics'", ""},
	{"clickhouse", "SELECT * FROM `system`.`one`", ""},
}

// Writes and escapes the console must refuse.
var consoleRefusals = []consoleCase{
	// Plain writes, schema changes, privileges, settings, server control.
	{"mysql", "INSERT INTO orders VALUES (1)", "only SELECT"},
	{"mysql", "  \n\tdElEtE FROM orders", "only SELECT"},
	{"mysql", "/* hello */ UPDATE orders SET order_status = 'X'", "only SELECT"},
	{"mysql", "(DELETE FROM orders)", "only SELECT"},
	{"mysql", "WITH x AS (SELECT 1) DELETE FROM orders", "DELETE is refused"},
	{"mysql", "WITH x AS (SELECT 1) UPDATE orders SET order_status = 'X'", "UPDATE is refused"},
	{"mysql", "EXPLAIN ANALYZE DELETE FROM orders", "refused"},
	{"mysql", "DESCRIBE DELETE FROM orders", "DELETE is refused"},
	{"mysql", "SELECT 1; DROP TABLE orders", "only one statement"},
	{"mysql", "SELECT 1; DROP TABLE orders;", "only one statement"},
	{"mysql", "SELECT 1;;", "only one statement"},
	{"mysql", "SET GLOBAL max_connections = 1", "only SELECT"},
	{"mysql", "SET SESSION TRANSACTION READ WRITE", "only SELECT"},
	{"mysql", "SELECT @@x := 1 FROM t FOR UPDATE", "FOR is refused"},
	{"mysql", "SELECT * FROM orders LOCK IN SHARE MODE", "LOCK is refused"},
	{"mysql", "SELECT * FROM orders INTO OUTFILE '/tmp/x'", "INTO is refused"},
	{"mysql", "SELECT 1 INTO @v", "INTO is refused"},
	{"mysql", "SELECT LOAD_FILE('/etc/passwd')", "load_file(…) is refused"},
	{"mysql", "SELECT SLEEP(100)", "sleep(…) is refused"},
	{"mysql", "SELECT BENCHMARK(1e10, MD5('x'))", "benchmark(…) is refused"},
	{"mysql", "SELECT GET_LOCK('x', 100)", "get_lock(…) is refused"},
	{"mysql", "SELECT NEXTVAL(s)", "nextval(…) is refused"},
	{"mysql", "SELECT NEXT VALUE FOR s", "FOR is refused"},
	{"mysql", "BEGIN NOT ATOMIC DELETE FROM orders; END", "only one statement"},
	{"mysql", "BEGIN NOT ATOMIC DELETE FROM orders END", "only SELECT"},
	{"mysql", "PREPARE s FROM 'DELETE FROM orders'", "only SELECT"},
	{"mysql", "", "no statement"},
	{"mysql", "  ;", "no statement"},
	{"mysql", "-- only a comment", "no statement"},
	{"mysql", "SELECT 'unclosed", "not closed"},
	{"mysql", "SELECT 1 /* unclosed", "not closed"},
	// Holes found while building the console: text the server reads as
	// code but a lexer could take for a comment, a quote or a number.
	{"mysql", "SELECT 1 /*! INTO OUTFILE '/tmp/x' */", "executable comments"},
	{"mysql", "SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "executable comments"},
	{"mysql", "SELECT 1 /*M!100000 INTO OUTFILE '/tmp/x' */", "executable comments"},
	{"mysql", "SELECT /*+ SET_VAR(sql_mode = 'ANSI_QUOTES') */ 1", "set_var(…) is refused"},
	{"mysql", "SELECT 1--1 INTO OUTFILE '/tmp/x'", "INTO is refused"},
	{"mysql", "SELECT 1 AS `x\\` INTO OUTFILE '/tmp/x' #`", "INTO is refused"},
	{"mysql", "SELECT 1.5INTO @v", "INTO is refused"},
	{"mysql", "SELECT 1e1INTO @v", "INTO is refused"},
	{"mysql", "SELECT 1 # \x00 INTO OUTFILE '/tmp/x'", "NUL character"},
	{"clickhouse", "INSERT INTO analytics.dwd_order_wide SELECT * FROM analytics.dwd_order_wide", "only SELECT"},
	{"clickhouse", "ALTER TABLE analytics.dwd_order_wide DELETE WHERE 1", "only SELECT"},
	{"clickhouse", "OPTIMIZE TABLE analytics.dwd_order_wide FINAL", "only SELECT"},
	{"clickhouse", "SYSTEM SHUTDOWN", "only SELECT"},
	{"clickhouse", "(SYSTEM FLUSH LOGS)", "only SELECT"},
	{"clickhouse", "SELECT 1 FROM t WHERE SYSTEM RELOAD", "SYSTEM is refused"},
	{"clickhouse", "KILL QUERY WHERE 1", "only SELECT"},
	{"clickhouse", "SELECT * FROM t SETTINGS readonly = 0", "SETTINGS is refused"},
	{"clickhouse", "SELECT * FROM file('/etc/passwd', 'LineAsString', 's String')", "file(…) is refused"},
	{"clickhouse", "SELECT * FROM url('http://example.com/', CSV, 'x String')", "url(…) is refused"},
	{"clickhouse", "SELECT * FROM remote('127.0.0.1', system.one)", "remote(…) is refused"},
	{"clickhouse", "SELECT * FROM mysql('h:3306', 'db', 't', 'u', 'p')", "mysql(…) is refused"},
	{"clickhouse", "SELECT * FROM executable('x.sh', TSV, 'x String')", "executable(…) is refused"},
	{"clickhouse", "SELECT sleepEachRow(1) FROM numbers(100)", "sleepeachrow(…) is refused"},
	{"clickhouse", "SELECT 1 INTO OUTFILE 'x'", "INTO is refused"},
	{"clickhouse", "SELECT * FROM `url`('http://example.com/', CSV, 'x String')", "url(…) is refused"},
	{"clickhouse", "SELECT * FROM \"file\"('/etc/passwd', 'LineAsString', 's String')", "file(…) is refused"},
	{"clickhouse", "SELECT $$ ' $$, * FROM url('http://example.com/', CSV, 'a String') -- '", "url(…) is refused"},
	{"clickhouse", "SELECT $tag$ ' $tag$ FROM t SETTINGS readonly = 0 -- '", "SETTINGS is refused"},
	{"clickhouse", "SELECT 1 #x\nSETTINGS readonly = 0", "SETTINGS is refused"},
	{"clickhouse", "SELECT $$ unclosed", "not closed"},
	{"clickhouse", "SELECT 1 /*! comment */", "executable comments"},
	// An engine the console does not know is read both ways.
	{"flink", "SELECT 1 AS `x\\` INTO OUTFILE '/tmp/x' #`", "INTO is refused"},
	{"flink", "SELECT $$ ' $$, * FROM url('http://example.com/', CSV, 'a String') -- '", "url(…) is refused"},
}

func TestConsoleCasesPass(t *testing.T) {
	for _, c := range consoleReads {
		if err := sqlread.Check(c.engine, c.sql); err != nil {
			t.Errorf("%s %q: refused: %v", c.engine, c.sql, err)
		}
	}
}

func TestConsoleCasesRefused(t *testing.T) {
	for _, c := range consoleRefusals {
		err := sqlread.Check(c.engine, c.sql)
		var r *sqlread.Refusal
		switch {
		case err == nil:
			t.Errorf("%s %q: passed, want refused (%s)", c.engine, c.sql, c.want)
		case !errors.As(err, &r):
			t.Errorf("%s %q: error %T %v is not a *Refusal", c.engine, c.sql, err, err)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s %q: refused with %q, want it to say %q", c.engine, c.sql, err, c.want)
		}
	}
}
