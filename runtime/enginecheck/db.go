package enginecheck

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// dbEngines are the lab's query engines in the order they are checked,
// with the model's names for them.
var dbEngines = []struct{ model, engine string }{
	{schemas.EngineMySQL, query.MySQL},
	{schemas.EnginePostgres, query.Postgres},
	{schemas.EngineClickHouse, query.ClickHouse},
}

// sqlItem is one statement to EXPLAIN: a preset or a query step's SQL.
type sqlItem struct {
	what string // "preset p", "step e.s"
	sql  string
	src  *schemas.SQLSource
	decl hcl.Range
}

// checkDatabases EXPLAINs every available preset and every query step
// whose SQL needs nothing from the run, on its engine.
func checkDatabases(ctx context.Context, lab *schemas.Lab, opt Options, res *Result) {
	reachable := map[string]bool{}
	for _, e := range dbEngines {
		items := dbItems(lab, e.model, opt)
		if len(items) == 0 && !hasDDL(lab, e.engine) {
			continue
		}
		title := map[string]string{query.MySQL: "MySQL", query.Postgres: "PostgreSQL", query.ClickHouse: "ClickHouse"}[e.engine]
		ep, ok := opt.DB[e.engine]
		if !ok {
			why := opt.Missing[e.engine]
			if why == "" {
				why = "no endpoint was given"
			}
			res.notChecked("%s: %d preset(s) and query step(s)%s: %s", title, len(items), ddlNote(lab, e.engine), why)
			continue
		}
		eng, err := query.Open(ep)
		if err != nil {
			res.notChecked("%s: %d preset(s) and query step(s): %v", title, len(items), err)
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, opt.Timeout)
		_, err = eng.Query(pctx, "SELECT 1", query.Limits{MaxRows: 1})
		cancel()
		if err != nil {
			eng.Close()
			res.notChecked("%s: %d preset(s) and query step(s)%s: %s at %s does not answer (%v)", title, len(items), ddlNote(lab, e.engine), title, ep.Short(), firstLine(err.Error()))
			continue
		}
		reachable[e.engine] = true
		explain := "EXPLAIN "
		for _, it := range items {
			qctx, cancel := context.WithTimeout(ctx, opt.Timeout)
			_, err := eng.Query(qctx, explain+it.sql, query.Limits{MaxRows: 10000, Timeout: opt.Timeout})
			cancel()
			if err != nil && e.engine == query.ClickHouse && explain != "" && oldClickHouse(err) {
				// A ClickHouse before 20.6 has no EXPLAIN: run the
				// read-only statement itself, as a preset is run.
				explain = ""
				qctx, cancel := context.WithTimeout(ctx, opt.Timeout)
				_, err = eng.Query(qctx, it.sql, query.Limits{MaxRows: 1, Timeout: opt.Timeout})
				cancel()
			}
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				res.add(dbDiagnostic(title, ep.Short(), it, explain, err))
			}
		}
		eng.Close()
		how := "EXPLAINed"
		if explain == "" {
			how = "run (this ClickHouse has no EXPLAIN)"
		}
		if len(items) > 0 {
			res.Checked = append(res.Checked, fmt.Sprintf("%s: %d preset(s) and query step(s) %s on %s", title, len(items), how, ep.Short()))
		}
	}
	// The DDL, where a scratch database can take it.
	if hasDDL(lab, query.MySQL) && reachable[query.MySQL] {
		checkMySQLDDL(ctx, lab, opt.DB[query.MySQL], res)
	}
	if hasDDL(lab, query.Postgres) && reachable[query.Postgres] {
		checkPostgresDDL(ctx, lab, opt.DB[query.Postgres], res)
	}
	if lab.Stack.ClickHouse != nil && hasStore(lab, schemas.StoreClickHouse) {
		res.notChecked("ClickHouse DDL: its Kafka tables would consume the lab's topics; the stack applies it when it starts")
	}
}

// dbItems are the presets and static query steps of one engine.
func dbItems(lab *schemas.Lab, engine string, opt Options) []sqlItem {
	var out []sqlItem
	for _, p := range lab.Presets {
		if p.Engine == engine && p.Unavailable == "" && p.SQL != "" {
			out = append(out, sqlItem{what: "preset " + p.Name, sql: p.SQL, src: p.SQLSource, decl: p.DeclRange})
		}
	}
	for _, e := range lab.Experiments {
		if e.Unavailable != "" {
			continue
		}
		for _, s := range e.Steps {
			q := s.Query
			if q == nil || q.Preset != "" || q.Engine != engine || q.SQL.Deferred() || strings.TrimSpace(q.SQL.Text) == "" {
				continue
			}
			text := strings.TrimSpace(q.SQL.Text)
			var src *schemas.SQLSource
			if opt.Source != nil && q.SQL.Range.Filename != "" {
				src = opt.Source(q.SQL.Range, text)
			}
			out = append(out, sqlItem{what: "step " + e.Name + "." + s.Name, sql: text, src: src, decl: q.SQL.Range})
		}
	}
	return out
}

// hasDDL tells whether labgen renders DDL for the engine that a scratch
// database can take (MySQL's and PostgreSQL's tables).
func hasDDL(l *schemas.Lab, engine string) bool {
	switch engine {
	case query.MySQL:
		return l.Stack.MySQL != nil && hasStore(l, schemas.StoreMySQL)
	case query.Postgres:
		return l.Stack.Postgres != nil && hasStore(l, schemas.StorePostgres)
	}
	return false
}

func ddlNote(l *schemas.Lab, engine string) string {
	if hasDDL(l, engine) {
		return " and the lab's DDL"
	}
	return ""
}

func hasStore(l *schemas.Lab, kind string) bool {
	for _, t := range l.Tables {
		if t.Store(kind) != nil {
			return true
		}
	}
	return false
}

func oldClickHouse(err error) bool {
	m := err.Error()
	return strings.Contains(m, "Syntax error") && strings.Contains(m, "position 1 ")
}

var (
	mysqlNear   = regexp.MustCompile(`near '((?s).*?)' at line (\d+)`)
	quotedName  = regexp.MustCompile(`(?:column|identifier|Table|table|function|columns:)\s+'([^']+)'`)
	chPosition  = regexp.MustCompile(`failed at position (\d+)`)
	chIdentName = regexp.MustCompile("(?:Unknown (?:expression |table expression )?identifier|Unknown function|Missing columns:)[: ]*['`]?([A-Za-z_][\\w.]*)")
)

// dbDiagnostic places what a database said of a statement at its source.
func dbDiagnostic(title, addr string, it sqlItem, prefix string, err error) *hcl.Diagnostic {
	msg := err.Error()
	off := -1 // byte offset in it.sql
	var me *mysql.MySQLError
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		msg = pe.Message
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		if pe.Position > 0 {
			off = runeOffset(prefix+it.sql, int(pe.Position)-1) - len(prefix)
		}
	case errors.As(err, &me):
		msg = me.Message
		if m := mysqlNear.FindStringSubmatch(me.Message); m != nil && m[1] != "" {
			line, _ := strconv.Atoi(m[2])
			start := offsetOf(prefix+it.sql, line, 1)
			if i := strings.Index((prefix + it.sql)[max(0, start):], m[1]); start >= 0 && i >= 0 {
				off = start + i - len(prefix)
			}
		}
	default:
		if m := chPosition.FindStringSubmatch(msg); m != nil {
			p, _ := strconv.Atoi(m[1])
			off = p - 1 - len(prefix)
		}
	}
	if off < 0 {
		// No position: the name the engine quotes, where the SQL has it.
		name := ""
		if m := quotedName.FindStringSubmatch(msg); m != nil {
			name = m[1]
		} else if m := chIdentName.FindStringSubmatch(msg); m != nil {
			name = m[1]
		}
		if name != "" {
			if i := strings.LastIndex(name, "."); i >= 0 && !strings.Contains(it.sql, name) {
				name = name[i+1:]
			}
			off = strings.Index(it.sql, name)
		}
	}
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: title + " rejects " + it.what,
		Detail: fmt.Sprintf("%s at %s rejects the SQL of %s:\n%s", title, addr, it.what, shorten(msg, 6))}
	if off >= 0 && off <= len(it.sql) {
		end := off
		if _, n := utf8.DecodeRuneInString(it.sql[off:]); n > 0 {
			end += n
		}
		if r, ok := it.src.Range(off, end); ok {
			d.Subject = &r
			return d
		}
	}
	if r, ok := it.src.Range(0, 0); ok {
		d.Subject = &r
	} else if it.decl.Filename != "" {
		r := it.decl
		d.Subject = &r
	}
	return d
}

// runeOffset is the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	off := 0
	for i := 0; i < n && off < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[off:])
		off += size
	}
	return off
}
