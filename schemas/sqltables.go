package schemas

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/flinksql"
)

// systemSchemas are the databases (schemas, for PostgreSQL) each engine
// has of its own: tables named in them are the server's, not the lab's.
var systemSchemas = map[string]map[string]bool{
	EngineMySQL:      {"information_schema": true, "mysql": true, "performance_schema": true, "sys": true},
	EnginePostgres:   {"information_schema": true, "pg_catalog": true, "pg_toast": true},
	EngineClickHouse: {"system": true, "information_schema": true},
}

// sqlTableNames are the tables a query on engine may name, keyed by
// their lower-cased names: plain and qualified with the engine's default
// database as the rendered DDL creates them (MySQL db.table, PostgreSQL
// public.table and db.public.table, ClickHouse db.table, with the Kafka
// queue and materialized view of a table ClickHouse ingests). The values
// are the names as the lab spells them, plain and qualified. ok is false
// when the stack does not run the engine.
func (d *decoder) sqlTableNames(engine string) (db string, names map[string]bool, plain, qualified []string, ok bool) {
	st := d.lab.Stack
	store := engine
	switch {
	case st == nil:
		return "", nil, nil, nil, false
	case engine == EngineMySQL && st.MySQL != nil:
		db = st.MySQL.Database
	case engine == EnginePostgres && st.Postgres != nil:
		db = PostgresSchema
	case engine == EngineClickHouse && st.ClickHouse != nil:
		db = st.ClickHouse.Database
	default:
		return "", nil, nil, nil, false
	}
	names = map[string]bool{}
	add := func(n string) {
		names[strings.ToLower(n)] = true
		names[strings.ToLower(db+"."+n)] = true
		if engine == EnginePostgres {
			names[strings.ToLower(st.Postgres.Database+"."+db+"."+n)] = true
		}
	}
	for _, t := range d.lab.Tables {
		s := t.Store(store)
		if s == nil {
			continue
		}
		add(s.Name)
		plain = append(plain, s.Name)
		qualified = append(qualified, db+"."+s.Name)
		if engine == EngineClickHouse && s.Ingest == StoreKafka {
			add(s.Name + "_queue")
			add(s.Name + "_mv")
		}
	}
	return db, names, plain, qualified, true
}

// checkSQLTables reports the tables that what's SQL on engine names
// after FROM or JOIN and that the lab does not declare for that engine:
// a misspelt table otherwise passes validate and render and fails only
// when the server runs the query. The SQL is read with flinksql's
// reader; where that reading could be wrong (a text that is not a plain
// SELECT, quoting or comments the reader does not know), nothing is said.
func (d *decoder) checkSQLTables(what, engine, sql string, src *sqlSource) {
	if d.stackBroken || sql == "" {
		return
	}
	// A table, the stack or a store with errors may be missing from the
	// lab: its tables are not known, and that error is the one to fix.
	for x := range d.declarations {
		if x.Severity == hcl.DiagError {
			return
		}
	}
	db, names, plain, qualified, ok := d.sqlTableNames(engine)
	if !ok {
		return
	}
	// Captured values become blanks of the same length, so that offsets
	// still point into the lab's text; one that is part of a name
	// (orders_${…}) leaves the name unknown.
	for _, m := range capturedValue.FindAllStringIndex(sql, -1) {
		if m[0] > 0 && nameByte(sql[m[0]-1]) || m[1] < len(sql) && nameByte(sql[m[1]]) {
			return
		}
	}
	sql = capturedValue.ReplaceAllStringFunc(sql, func(m string) string { return "0" + strings.Repeat(" ", len(m)-1) })
	// Backslash escapes (MySQL, ClickHouse), dollar quotes (PostgreSQL,
	// ClickHouse), # comments and PostgreSQL's nested comments are read
	// differently by the servers than by flinksql's reader.
	if strings.ContainsAny(sql, "\\$#") || engine == EnginePostgres && nestedComment(sql) {
		return
	}
	toks := flinksql.Lex(sql)
	first := 0
	for first < len(toks) && toks[first].Kind == flinksql.Symbol && toks[first].Text == "(" {
		first++
	}
	if first == len(toks) || !toks[first].Is("SELECT") && !toks[first].Is("WITH") {
		return // SHOW … FROM db names a database; EXPLAIN and DESCRIBE are left to the server
	}
	// The names of common table expressions, also of a WITH inside a
	// subquery: name AS (…), name (a, b) AS (…), name AS [NOT]
	// MATERIALIZED (…).
	local := map[string]bool{}
	for i, t := range toks {
		if !t.Is("AS") || i == 0 {
			continue
		}
		j := i + 1
		for j < len(toks) && (toks[j].Is("NOT") || toks[j].Is("MATERIALIZED")) {
			j++
		}
		if j >= len(toks) || toks[j].Text != "(" || toks[j].Kind != flinksql.Symbol {
			continue
		}
		k := i - 1
		if toks[k].Kind == flinksql.Symbol && toks[k].Text == ")" {
			for depth := 0; k >= 0; k-- {
				if toks[k].Kind == flinksql.Symbol && toks[k].Text == ")" {
					depth++
				} else if toks[k].Kind == flinksql.Symbol && toks[k].Text == "(" {
					if depth--; depth == 0 {
						break
					}
				}
			}
			k--
		}
		if k >= 0 && toks[k].Ident() {
			local[strings.ToLower(toks[k].Text)] = true
		}
	}
	system := systemSchemas[engine]
	for _, ref := range flinksql.TableRefs(toks) {
		parts := make([]string, len(ref.Parts))
		for i, p := range ref.Parts {
			parts[i] = strings.ToLower(p)
		}
		full := strings.Join(parts, ".")
		switch {
		case names[full]:
			continue
		case len(parts) == 1 && (local[parts[0]] || parts[0] == "dual" || parts[0] == "only"):
			continue // a CTE, MySQL's dual, PostgreSQL's FROM ONLY t
		case len(parts) == 1 && engine == EnginePostgres && strings.HasPrefix(parts[0], "pg_"):
			continue // pg_catalog's tables and views are found without the schema
		case len(parts) >= 2 && system[parts[len(parts)-2]]:
			continue
		case len(parts) > 2 && engine != EnginePostgres, len(parts) > 3:
			continue // not a table name these engines read: the server will say
		}
		written := strings.Join(ref.Parts, ".")
		candidates := plain
		if len(parts) > 1 {
			candidates = qualified
			if engine == EnginePostgres && len(parts) == 3 {
				candidates = nil
				for _, q := range qualified {
					candidates = append(candidates, d.lab.Stack.Postgres.Database+"."+q)
				}
			}
		}
		hint := didYouMean(written, candidates)
		if hint == "" {
			hint = " " + labTablesOn(engine, qualified)
		}
		d.errorf(src.rng(ref.Pos, ref.End), "Query reads an undeclared table",
			"%s names %s, but no table of this lab has a %s store called so (unqualified names are in %s).%s",
			what, written, engineTitle(engine), db, hint)
	}
}

// nameByte tells whether c may be part of a (dotted) name.
func nameByte(c byte) bool {
	return c == '_' || c == '.' || c == '`' || c == '"' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// nestedComment tells whether a /* comment holds another /*, which
// PostgreSQL nests and flinksql's reader does not.
func nestedComment(sql string) bool {
	for rest := sql; ; {
		i := strings.Index(rest, "/*")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		end := strings.Index(rest, "*/")
		if end < 0 {
			return false
		}
		if strings.Contains(rest[:end], "/*") {
			return true
		}
		rest = rest[end+2:]
	}
}

// labTablesOn lists the lab's tables on an engine for a message.
func labTablesOn(engine string, qualified []string) string {
	if len(qualified) == 0 {
		return fmt.Sprintf("The lab declares no table with a %s store.", engineTitle(engine))
	}
	q := append([]string{}, qualified...)
	sort.Strings(q)
	return fmt.Sprintf("The lab's %s tables are %s.", engineTitle(engine), strings.Join(q, ", "))
}

func engineTitle(engine string) string {
	if k := StoreKindOf(engine); k != nil {
		return k.Title
	}
	return engine
}
