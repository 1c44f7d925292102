package generator

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/schemas"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

const seedLabDir = "../labs/orders"

// loadLab loads the seed lab with variables set, as render would, and
// returns it as the producer sees it: through lab.json.
func loadLab(t testing.TB, vars ...string) *schemas.Lab {
	t.Helper()
	var args []schemas.VarArg
	for _, v := range vars {
		k, val, _ := strings.Cut(v, "=")
		args = append(args, schemas.VarArg{Name: k, Value: val})
	}
	p := schemas.NewParser()
	lab, diags := p.Load(seedLabDir, schemas.Options{Vars: args})
	if diags.HasErrors() {
		t.Fatalf("loading the seed lab: %s", diags.Error())
	}
	return roundTrip(t, lab)
}

// roundTrip passes the lab through lab.json, as the producer reads it.
func roundTrip(t testing.TB, lab *schemas.Lab) *schemas.Lab {
	t.Helper()
	b, err := schemas.MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/lab.json"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := schemas.ReadLabJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func compile(t testing.TB, lab *schemas.Lab, seed int64) []*Plan {
	t.Helper()
	plans, err := Compile(lab, seed)
	if err != nil {
		t.Fatal(err)
	}
	return plans
}

// createTables creates the lab's MySQL tables in db, the way the rendered
// schema does (the render package owns the real DDL; this is its shape).
func createTables(t testing.TB, db *sql.DB, lab *schemas.Lab) {
	t.Helper()
	for _, tb := range lab.Tables {
		st := tb.Store(schemas.StoreMySQL)
		if st == nil {
			continue
		}
		var cols []string
		for _, c := range tb.Columns {
			null := " NOT NULL"
			if c.Nullable {
				null = " NULL"
			}
			cols = append(cols, quoteID(c.Name)+" "+c.Type.MySQL()+null)
		}
		var key []string
		for _, k := range tb.Key {
			key = append(key, quoteID(k))
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(key, ",")+")")
		q := "CREATE TABLE " + quoteID(st.Name) + " (\n  " + strings.Join(cols, ",\n  ") + "\n) ENGINE=InnoDB"
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func openDB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = &mysql.NopLogger{} // connections dropped by restarts are expected
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// labDB is a fresh database with the lab's tables, and the producer's
// sink connected to it.
type labDB struct {
	name, dsn string
	db        *sql.DB
	tdb       *sql.DB // parseTime: DATETIME scans into time.Time (UTC)
	cfg       *mysql.Config
}

func newLabDB(t testing.TB, srv *testsrv.MariaDBServer, lab *schemas.Lab) *labDB {
	t.Helper()
	name, dsn := srv.NewDatabase(t)
	db := openDB(t, dsn)
	createTables(t, db, lab)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return &labDB{name: name, dsn: dsn, db: db, tdb: openDB(t, dsn+"?parseTime=true"), cfg: cfg}
}

func openSink(t testing.TB, cfg *mysql.Config) *MySQL {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := OpenMySQL(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dump reads a table as text lines, ordered by its first column, for
// comparing whole tables.
func dump(t testing.TB, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query("SELECT * FROM " + quoteID(table) + " ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			if v.Valid {
				b.WriteString(v.String)
			} else {
				b.WriteString("NULL")
			}
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func queryInt(t testing.TB, db *sql.DB, q string) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// logSink collects Log messages.
type logSink struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logSink) log(m string) {
	l.mu.Lock()
	l.msgs = append(l.msgs, m)
	l.mu.Unlock()
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "\n")
}

func (l *logSink) contains(s string) bool { return strings.Contains(l.String(), s) }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
