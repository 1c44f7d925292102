// Package sqlread decides whether an SQL text is a single read-only
// statement. Presets are checked with it when a lab is loaded, and the
// console checks every query with it before sending it to a session that is
// itself read-only: two locks, so one mistake cannot change data.
package sqlread

import (
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

// lex splits SQL into words, symbols, strings and quoted identifiers,
// dropping comments. It understands the quoting of MySQL and ClickHouse.
func lex(sql string) ([]token, error) {
	var out []token
	r := []rune(sql)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-', c == '#':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			end := strings.Index(string(r[i+2:]), "*/")
			if end < 0 {
				return nil, fmt.Errorf("a /* comment is not closed")
			}
			i += 2 + len([]rune(string(r[i+2:])[:end])) + 2
		case c == '\'' || c == '"' || c == '`':
			start := i
			i++
			var b strings.Builder
			closed := false
			for i < len(r) {
				if r[i] == '\\' && i+1 < len(r) {
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
			if c != '\'' {
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
			start := i
			for i < len(r) && (unicode.IsDigit(r[i]) || unicode.IsLetter(r[i]) || r[i] == '.') {
				i++
			}
			out = append(out, token{tSymbol, string(r[start:i]), start})
		default:
			out = append(out, token{tSymbol, string(c), i})
			i++
		}
	}
	return out, nil
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
	"SLEEPEACHROW": true,
}

// Refusal explains why a text is not a single read-only statement.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Check returns nil when sql is one read-only statement, and a *Refusal
// saying why not otherwise. engine is "mysql" or "clickhouse"; the rules
// are the union of both dialects' dangers, so it matters only for wording.
func Check(engine, sql string) error {
	toks, err := lex(sql)
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
		if why, ok := writeWords[t.text]; ok {
			// INTO / FOR / SET / ANALYZE / LOCK are common words only in
			// statements that do more than read.
			return &Refusal{fmt.Sprintf("%s is refused: it %s; the console only reads", t.text, why)}
		}
		if outsideFuncs[t.text] && i+1 < len(toks) && toks[i+1].kind == tSymbol && toks[i+1].text == "(" {
			return &Refusal{fmt.Sprintf("%s(…) is refused: it reaches outside the database or holds the connection", strings.ToLower(t.text))}
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
	}
	return engine
}
