package enginecheck

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/hcl/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labgen/labgen/flinksql"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

// The DDL labgen renders for MySQL and PostgreSQL is checked by applying
// it to a scratch database, which is dropped afterwards: the lab's own
// database is never touched. A user who may not create databases (the
// lab's reader) leaves it unchecked, with a note.

func scratchName() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return "labgen_check_" + hex.EncodeToString(b)
}

// withDatabase is the lab with its MySQL or PostgreSQL database renamed,
// for rendering its DDL into a scratch database.
func withDatabase(l *schemas.Lab, engine, db string) *schemas.Lab {
	c := *l
	st := *l.Stack
	switch engine {
	case query.MySQL:
		m := *st.MySQL
		m.Database = db
		st.MySQL = &m
	case query.Postgres:
		p := *st.Postgres
		p.Database = db
		st.Postgres = &p
	}
	c.Stack = &st
	return &c
}

var createTableName = regexp.MustCompile("(?is)CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?[`\"]((?:[^`\"])+)[`\"]")

// ddlDiagnostic places a database's refusal of a table's DDL at the
// table's block, or at the column the message quotes.
func ddlDiagnostic(lab *schemas.Lab, title, addr, kind, stmt, msg string) *hcl.Diagnostic {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: title + " rejects a table's DDL",
		Detail: fmt.Sprintf("%s at %s rejects the DDL labgen renders (tried in a scratch database):\n%s", title, addr, shorten(msg, 6))}
	m := createTableName.FindStringSubmatch(stmt)
	if m == nil {
		return d
	}
	for _, t := range lab.Tables {
		s := t.Store(kind)
		if s == nil || s.Name != m[1] {
			continue
		}
		d.Summary = fmt.Sprintf("%s rejects table %s", title, t.Name)
		r := t.DeclRange
		for _, c := range t.Columns {
			if strings.Contains(msg, "'"+c.Name+"'") || strings.Contains(msg, `"`+c.Name+`"`) {
				r = c.DeclRange
				break
			}
		}
		if r.Filename != "" {
			d.Subject = &r
		}
	}
	return d
}

// checkMySQLDDL applies the rendered MySQL schema to a scratch database.
func checkMySQLDDL(ctx context.Context, lab *schemas.Lab, ep query.Endpoint, res *Result) {
	cfg, err := ep.MySQLConfig()
	if err != nil {
		res.notChecked("MySQL DDL: %v", err)
		return
	}
	cfg.DBName = ""
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		res.notChecked("MySQL DDL: %v", err)
		return
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		res.notChecked("MySQL DDL: %v", firstLine(err.Error()))
		return
	}
	defer c.Close()
	name := scratchName()
	if _, err := c.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		res.notChecked("MySQL DDL: %s may not create a scratch database to try it in (%v); --mysql with a user who may checks it", ep.Short(), firstLine(err.Error()))
		return
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = c.ExecContext(dctx, "DROP DATABASE IF EXISTS `"+name+"`")
	}()
	files, err := render.FaceFiles(withDatabase(lab, query.MySQL, name), render.ComposeFace)
	if err != nil {
		res.notChecked("MySQL DDL: %v", err)
		return
	}
	sts, err := flinksql.Split(string(files["sql/mysql/schema.sql"]))
	if err != nil {
		res.notChecked("MySQL DDL: %v", err)
		return
	}
	n := 0
	for _, st := range sts {
		text := stripLeadingComments(st.Text)
		if strings.HasPrefix(strings.ToUpper(text), "CREATE DATABASE") {
			continue
		}
		n++
		if _, err := c.ExecContext(ctx, text); err != nil {
			msg := err.Error()
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				msg = me.Message
			}
			res.add(ddlDiagnostic(lab, "MySQL", ep.Short(), schemas.StoreMySQL, text, msg))
		}
	}
	res.Checked = append(res.Checked, fmt.Sprintf("MySQL: the lab's DDL (%d statement(s)) applied to a scratch database on %s, dropped afterwards", n, ep.Short()))
}

// checkPostgresDDL applies the rendered PostgreSQL schema to a scratch
// database.
func checkPostgresDDL(ctx context.Context, lab *schemas.Lab, ep query.Endpoint, res *Result) {
	cfg, err := ep.PostgresConfig()
	if err != nil {
		res.notChecked("PostgreSQL DDL: %v", err)
		return
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		res.notChecked("PostgreSQL DDL: %v", firstLine(err.Error()))
		return
	}
	defer admin.Close(context.WithoutCancel(ctx))
	name := scratchName()
	if _, err := admin.Exec(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		res.notChecked("PostgreSQL DDL: %s may not create a scratch database to try it in (%v); --postgres with a user who may checks it", ep.Short(), firstLine(err.Error()))
		return
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = admin.Exec(dctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	}()
	scfg := cfg.Copy()
	scfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, scfg)
	if err != nil {
		res.notChecked("PostgreSQL DDL: %v", firstLine(err.Error()))
		return
	}
	defer conn.Close(context.WithoutCancel(ctx))
	files, err := render.FaceFiles(withDatabase(lab, query.Postgres, name), render.ComposeFace)
	if err != nil {
		res.notChecked("PostgreSQL DDL: %v", err)
		return
	}
	sts, err := splitPostgres(string(files["sql/postgres/schema.sql"]))
	if err != nil {
		res.notChecked("PostgreSQL DDL: %v", err)
		return
	}
	for _, st := range sts {
		if _, err := conn.PgConn().Exec(ctx, st).ReadAll(); err != nil {
			msg := err.Error()
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				msg = pe.Message
			}
			res.add(ddlDiagnostic(lab, "PostgreSQL", ep.Short(), schemas.StorePostgres, st, msg))
		}
	}
	res.Checked = append(res.Checked, fmt.Sprintf("PostgreSQL: the lab's DDL (%d statement(s)) applied to a scratch database on %s, dropped afterwards", len(sts), ep.Short()))
}

// splitPostgres splits the rendered schema into statements, keeping a
// DO $$ … $$ block whole (flinksql's splitter knows no dollar quotes).
func splitPostgres(script string) ([]string, error) {
	var out []string
	for len(strings.TrimSpace(script)) > 0 {
		i := strings.Index(script, "$$")
		head := script
		if i >= 0 {
			// Up to the statement that opens the block.
			head = script[:i]
			if k := strings.LastIndex(head, ";"); k >= 0 {
				head = head[:k+1]
			} else {
				head = ""
			}
		}
		sts, err := flinksql.Split(head)
		if err != nil {
			return nil, err
		}
		for _, st := range sts {
			out = append(out, stripLeadingComments(st.Text))
		}
		script = script[len(head):]
		if i < 0 {
			break
		}
		j := strings.Index(script, "$$")
		k := strings.Index(script[j+2:], "$$")
		if k < 0 {
			return nil, fmt.Errorf("a $$ block is not closed")
		}
		end := j + 2 + k + 2
		if e := strings.Index(script[end:], ";"); e >= 0 {
			end += e + 1
		}
		out = append(out, stripLeadingComments(strings.TrimSpace(script[:end])))
		script = script[end:]
	}
	return out, nil
}
