// Package sqlread decides whether an SQL text is a single read-only
// statement. Presets are checked with it when a lab is loaded, and the
// console checks every query with it before sending it to a session that is
// itself read-only: two locks, so one mistake cannot change data.
package sqlread

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Token kinds of the small lexer below.
const (
	tWord = iota
	tSymbol
	tString
	tQuoted // a quoted identifier
)

type token struct {
	kind int
	text string
	pos  int
}

// dialect is how one server splits text into tokens. Where the two
// servers differ, reading a text the way the other server does could hide
// code in what looks like a comment or a quoted name, so each engine's
// text is read its own way.
type dialect struct {
	name string
	// dashNeedsSpace: MySQL starts a -- comment only before whitespace, a
	// control character or the end (1--1 is 1 - -1); ClickHouse always.
	dashNeedsSpace bool
	// hashAlways: MySQL's # always starts a comment; current ClickHouse's
	// only before ' ' or '!' (18.16 rejects # altogether).
	hashAlways bool
	// backtickEscapes: ClickHouse reads \` inside `…` as an escaped
	// backtick; MySQL ends the name at any backtick.
	backtickEscapes bool
	// heredoc: ClickHouse reads $tag$…$tag$ as a string.
	heredoc bool
	// hints: MySQL reads /*+ … */ as optimizer hints, which SET_VAR uses
	// to change settings; their content is read as code.
	hints bool
	// postgres: PostgreSQL nests /* comments, reads '…' and "…" without
	// backslash escapes (standard_conforming_strings, which the query
	// engine sets), E'…' with them, "…" as a name, and has no # comment
	// and no backtick quote.
	postgres bool
}

var (
	mysqlDialect      = dialect{name: "mysql", dashNeedsSpace: true, hashAlways: true, hints: true}
	clickhouseDialect = dialect{name: "clickhouse", backtickEscapes: true, heredoc: true}
	// PostgreSQL's $tag$…$tag$ strings are ClickHouse's heredocs.
	postgresDialect = dialect{name: "postgres", heredoc: true, postgres: true}
)

// lex splits SQL into words, symbols, strings and quoted identifiers,
// dropping comments, the way the dialect's server does.
func lex(sql string, d dialect) ([]token, error) {
	var out []token
	if i := strings.IndexByte(sql, 0); i >= 0 {
		// MySQL ends a # comment at a NUL; refuse rather than guess.
		return nil, fmt.Errorf("it contains a NUL character at byte %d", i+1)
	}
	r := []rune(sql)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-' &&
			(!d.dashNeedsSpace || i+2 >= len(r) || unicode.IsSpace(r[i+2]) || unicode.IsControl(r[i+2])),
			c == '#' && !d.postgres && (d.hashAlways || i+1 < len(r) && (r[i+1] == ' ' || r[i+1] == '!')):
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			rest := string(r[i+2:])
			if strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "M!") {
				return nil, &Refusal{"executable comments (/*! … */, /*M! … */) are refused: MySQL runs what they contain"}
			}
			if d.hints && strings.HasPrefix(rest, "+") {
				i += 3 // optimizer hints: read on as code
				continue
			}
			end := strings.Index(rest, "*/")
			if d.postgres {
				end = nestedCommentEnd(rest)
			}
			if end < 0 {
				return nil, fmt.Errorf("a /* comment is not closed")
			}
			i += 2 + len([]rune(rest[:end])) + 2
		case d.heredoc && c == '$' && heredocTag(r[i:]) != "":
			tag := heredocTag(r[i:])
			body := string(r[i+len([]rune(tag)):])
			end := strings.Index(body, tag)
			if end < 0 {
				return nil, fmt.Errorf("a %s string opened at character %d is not closed", tag, i+1)
			}
			out = append(out, token{tString, body[:end], i})
			i += len([]rune(tag)) + len([]rune(body[:end])) + len([]rune(tag))
		case c == '\'' || c == '"' || c == '`' && !d.postgres,
			d.postgres && (c == 'E' || c == 'e') && i+1 < len(r) && r[i+1] == '\'' && (i == 0 || !isWordRune(r[i-1])):
			start := i
			escapes := c != '`' || d.backtickEscapes
			if d.postgres {
				// Only E'…' reads backslash escapes.
				escapes = c == 'E' || c == 'e'
				if escapes {
					i++
					c = '\''
				}
			}
			i++
			var b strings.Builder
			closed := false
			for i < len(r) {
				if escapes && r[i] == '\\' && i+1 < len(r) {
					b.WriteRune(r[i+1])
					i += 2
					continue
				}
				if r[i] == c {
					if i+1 < len(r) && r[i+1] == c { // doubled quote
						b.WriteRune(c)
						i += 2
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteRune(r[i])
				i++
			}
			if !closed {
				return nil, fmt.Errorf("a %c quote opened at character %d is not closed", c, start+1)
			}
			kind := tString
			if c == '`' || c == '"' && (d.name == "clickhouse" || d.postgres) {
				kind = tQuoted
			}
			out = append(out, token{kind, b.String(), start})
		case unicode.IsLetter(c) || c == '_' || c == '@' || c == '$':
			start := i
			for i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]) || r[i] == '_' || r[i] == '@' || r[i] == '$') {
				i++
			}
			out = append(out, token{tWord, strings.ToUpper(string(r[start:i])), start})
		case unicode.IsDigit(c):
			// A number ends where a letter that cannot continue it begins:
			// MySQL reads 1.5INTO as 1.5 INTO.
			start := i
			i = numberEnd(r, i)
			out = append(out, token{tSymbol, string(r[start:i]), start})
		default:
			out = append(out, token{tSymbol, string(c), i})
			i++
		}
	}
	return out, nil
}

func isWordRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '@' || c == '$'
}

// nestedCommentEnd is the index in s (what follows a /*) of the */ that
// closes it, counting nested /* … */ as PostgreSQL does, or -1.
func nestedCommentEnd(s string) int {
	depth := 1
	for i := 0; i+1 < len(s); i++ {
		switch {
		case s[i] == '/' && s[i+1] == '*':
			depth++
			i++
		case s[i] == '*' && s[i+1] == '/':
			depth--
			if depth == 0 {
				return i
			}
			i++
		}
	}
	return -1
}

// heredocTag returns the $tag$ that opens a ClickHouse heredoc at r, or "".
func heredocTag(r []rune) string {
	for j := 1; j < len(r); j++ {
		switch {
		case r[j] == '$':
			return string(r[:j+1])
		case r[j] == '_' || r[j] < 128 && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j])):
		default:
			return ""
		}
	}
	return ""
}

// numberEnd returns the end of the number starting at r[i]: digits, a
// fraction, an exponent, or 0x / 0b digits.
func numberEnd(r []rune, i int) int {
	isHex := func(c rune) bool { return unicode.IsDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if r[i] == '0' && i+2 < len(r) && (r[i+1] == 'x' || r[i+1] == 'X') && isHex(r[i+2]) {
		i += 2
		for i < len(r) && isHex(r[i]) {
			i++
		}
		return i
	}
	if r[i] == '0' && i+2 < len(r) && (r[i+1] == 'b' || r[i+1] == 'B') && (r[i+2] == '0' || r[i+2] == '1') {
		i += 2
		for i < len(r) && (r[i] == '0' || r[i] == '1') {
			i++
		}
		return i
	}
	digits := func() {
		for i < len(r) && unicode.IsDigit(r[i]) {
			i++
		}
	}
	digits()
	if i < len(r) && r[i] == '.' {
		i++
		digits()
	}
	if i < len(r) && (r[i] == 'e' || r[i] == 'E') {
		j := i + 1
		if j < len(r) && (r[j] == '+' || r[j] == '-') {
			j++
		}
		if j < len(r) && unicode.IsDigit(r[j]) {
			i = j
			digits()
		}
	}
	return i
}

// Statement starts that only read.
var readStarts = map[string]bool{"SELECT": true, "WITH": true, "SHOW": true, "DESCRIBE": true, "DESC": true, "EXPLAIN": true}

// Words that, anywhere outside quotes, mean the text does more than read.
var writeWords = map[string]string{
	"INSERT": "writes", "UPDATE": "writes", "DELETE": "writes", "REPLACE": "writes", "MERGE": "writes",
	"UPSERT": "writes", "TRUNCATE": "writes", "CREATE": "changes the schema", "DROP": "changes the schema",
	"ALTER": "changes the schema", "RENAME": "changes the schema", "ATTACH": "changes the schema",
	"DETACH": "changes the schema", "UNDROP": "changes the schema", "EXCHANGE": "changes the schema",
	"OPTIMIZE": "changes tables", "GRANT": "changes privileges", "REVOKE": "changes privileges",
	"SET": "changes settings", "SETTINGS": "changes settings", "USE": "changes the session",
	"KILL": "controls the server", "SYSTEM": "controls the server", "SHUTDOWN": "controls the server",
	"FLUSH": "controls the server", "RESET": "controls the server", "PURGE": "controls the server",
	"INSTALL": "controls the server", "UNINSTALL": "controls the server", "CALL": "runs a procedure",
	"DO": "runs an expression for its effects", "HANDLER": "opens a handler", "LOAD": "reads files",
	"OUTFILE": "writes files", "DUMPFILE": "writes files", "INFILE": "reads files", "INTO": "writes its result somewhere",
	"LOCK": "takes locks", "UNLOCK": "releases locks", "FOR": "may take locks (FOR UPDATE / FOR SHARE)",
	"BEGIN": "controls transactions", "COMMIT": "controls transactions", "ROLLBACK": "controls transactions",
	"START": "controls transactions", "SAVEPOINT": "controls transactions", "BACKUP": "writes files", "RESTORE": "writes data",
	"PREPARE": "prepares statements", "EXECUTE": "executes statements", "DEALLOCATE": "prepares statements",
	"ANALYZE": "executes the statement (EXPLAIN ANALYZE) or updates statistics",
	// PostgreSQL's own.
	"COPY": "reads or writes files", "LISTEN": "waits for notifications", "NOTIFY": "sends notifications",
	"VACUUM": "controls the server", "REINDEX": "changes tables", "REFRESH": "changes tables",
	"DISCARD": "changes the session", "CHECKPOINT": "controls the server", "COMMENT": "changes the schema",
}

// Functions that reach outside the database: files, URLs, other servers or
// processes (ClickHouse table functions and MySQL's LOAD_FILE), or that
// hold a connection (SLEEP, BENCHMARK).
var outsideFuncs = map[string]bool{
	"FILE": true, "URL": true, "S3": true, "S3CLUSTER": true, "GCS": true, "HDFS": true, "REMOTE": true,
	"REMOTESECURE": true, "CLUSTER": true, "CLUSTERALLREPLICAS": true, "MYSQL": true, "POSTGRESQL": true,
	"SQLITE": true, "JDBC": true, "ODBC": true, "MONGODB": true, "REDIS": true, "EXECUTABLE": true,
	"INPUT": true, "AZUREBLOBSTORAGE": true, "DELTALAKE": true, "HUDI": true, "ICEBERG": true,
	"URLCLUSTER": true, "FILECLUSTER": true, "LOAD_FILE": true, "SLEEP": true, "BENCHMARK": true,
	"SLEEPEACHROW": true, "HDFSCLUSTER": true, "AZUREBLOBSTORAGECLUSTER": true, "ICEBERGS3": true,
	"ICEBERGAZURE": true, "ICEBERGHDFS": true, "ICEBERGLOCAL": true, "ICEBERGCLUSTER": true,
	"DELTALAKECLUSTER": true, "HUDICLUSTER": true, "ARROWFLIGHT": true, "ODBCCLUSTER": true,
	// PostgreSQL's files, other servers and waits.
	"PG_SLEEP": true, "PG_SLEEP_FOR": true, "PG_SLEEP_UNTIL": true, "PG_READ_FILE": true,
	"PG_READ_BINARY_FILE": true, "PG_LS_DIR": true, "PG_STAT_FILE": true, "DBLINK": true, "DBLINK_EXEC": true,
}

// Functions refused for what they do to the server or the session.
var refusedFuncs = map[string]string{
	"GET_LOCK": "takes a named lock that outlives the query", "RELEASE_LOCK": "releases named locks",
	"RELEASE_ALL_LOCKS": "releases named locks", "NEXTVAL": "advances a sequence", "SETVAL": "changes a sequence",
	"MASTER_POS_WAIT": "holds the connection", "MASTER_GTID_WAIT": "holds the connection",
	"SOURCE_POS_WAIT": "holds the connection", "WAIT_FOR_EXECUTED_GTID_SET": "holds the connection",
	"WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS": "holds the connection", "SYS_EXEC": "runs a program on the server",
	"SYS_EVAL": "runs a program on the server", "SET_VAR": "changes settings for the statement",
	// PostgreSQL's: settings, locks, other backends, statements in strings.
	"SET_CONFIG": "changes settings", "PG_ADVISORY_LOCK": "takes a lock that outlives the query",
	"PG_ADVISORY_XACT_LOCK": "takes a lock", "PG_TRY_ADVISORY_LOCK": "takes a lock that outlives the query",
	"PG_TERMINATE_BACKEND": "stops other sessions", "PG_CANCEL_BACKEND": "stops other queries",
	"PG_RELOAD_CONF": "controls the server", "PG_ROTATE_LOGFILE": "controls the server",
	"PG_NOTIFY": "sends notifications", "QUERY_TO_XML": "runs the statement in its argument",
	"QUERY_TO_XMLSCHEMA": "runs the statement in its argument", "QUERY_TO_XML_AND_XMLSCHEMA": "runs the statement in its argument",
	"LO_IMPORT": "reads files", "LO_EXPORT": "writes files",
}

// Refusal explains why a text is not a single read-only statement.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Check returns nil when sql is one read-only statement, and a *Refusal
// saying why not otherwise. engine is "mysql", "postgres" or "clickhouse". The refused
// words and functions are the union of both dialects' dangers, but the
// text is split into tokens the way the engine's server splits it
// (comments, quotes and numbers differ between MySQL and ClickHouse); for
// any other engine name it must pass both ways. MySQL text is read as the
// default sql_mode reads it: without ANSI_QUOTES and NO_BACKSLASH_ESCAPES,
// which a session running checked text must not have.
func Check(engine, sql string) error {
	switch engine {
	case "mysql":
		return check(engine, sql, mysqlDialect)
	case "clickhouse":
		return check(engine, sql, clickhouseDialect)
	case "postgres":
		return check(engine, sql, postgresDialect)
	}
	for _, d := range []dialect{mysqlDialect, clickhouseDialect, postgresDialect} {
		if err := check(engine, sql, d); err != nil {
			return err
		}
	}
	return nil
}

func check(engine, sql string, d dialect) error {
	toks, err := lex(sql, d)
	var refusal *Refusal
	if errors.As(err, &refusal) {
		return refusal
	}
	if err != nil {
		return &Refusal{"the SQL cannot be read: " + err.Error()}
	}
	// One statement: a single trailing semicolon is allowed.
	for i, t := range toks {
		if t.kind == tSymbol && t.text == ";" {
			if i != len(toks)-1 {
				return &Refusal{"only one statement is allowed; this text has more after a ';'"}
			}
			toks = toks[:i]
		}
	}
	if len(toks) == 0 {
		return &Refusal{"there is no statement"}
	}
	first := toks[0]
	for first.kind == tSymbol && first.text == "(" && len(toks) > 1 {
		toks = toks[1:]
		first = toks[0]
	}
	if first.kind != tWord || !readStarts[first.text] {
		return &Refusal{fmt.Sprintf("only SELECT, WITH … SELECT, SHOW, DESCRIBE and EXPLAIN are allowed on %s; this statement starts with %s", engineName(engine), first.text)}
	}
	for i, t := range toks {
		if t.kind != tWord {
			continue
		}
		if i == 1 && first.text == "SHOW" && t.text == "CREATE" {
			continue // SHOW CREATE TABLE only reads the definition
		}
		if t.text == "SYSTEM" && i+1 < len(toks) && toks[i+1].kind == tSymbol && toks[i+1].text == "." {
			continue // ClickHouse's system database (system.tables), not a SYSTEM statement
		}
		if why, ok := writeWords[t.text]; ok {
			// INTO / FOR / SET / ANALYZE / LOCK are common words only in
			// statements that do more than read.
			return &Refusal{fmt.Sprintf("%s is refused: it %s; the console only reads", t.text, why)}
		}
	}
	// Functions, also when their name is quoted (ClickHouse accepts
	// `url`(…) as well as url(…)).
	for i, t := range toks {
		name := t.text
		if t.kind == tQuoted {
			name = strings.ToUpper(name)
		} else if t.kind != tWord {
			continue
		}
		if i+1 < len(toks) && toks[i+1].kind == tSymbol && toks[i+1].text == "(" {
			if why, ok := refusedFuncs[name]; ok {
				return &Refusal{fmt.Sprintf("%s(…) is refused: it %s", strings.ToLower(name), why)}
			}
			if outsideFuncs[name] {
				return &Refusal{fmt.Sprintf("%s(…) is refused: it reaches outside the database or holds the connection", strings.ToLower(name))}
			}
		}
	}
	return nil
}

func engineName(engine string) string {
	switch engine {
	case "mysql":
		return "MySQL"
	case "clickhouse":
		return "ClickHouse"
	case "postgres":
		return "PostgreSQL"
	}
	return engine
}
