package query

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/labgen/labgen/internal/testsrv"
)

// pgFixture is a database with table t (three rows) as the superuser.
type pgFixture struct {
	srv  *testsrv.PostgresServer
	db   string
	root *sql.DB
}

func newPostgres(t *testing.T) *pgFixture {
	t.Helper()
	srv := testsrv.Postgres(t)
	name, dsn := srv.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	root := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { root.Close() })
	f := &pgFixture{srv: srv, db: name, root: root}
	f.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(32))")
	f.exec(t, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	return f
}

func (f *pgFixture) exec(t *testing.T, q string) {
	t.Helper()
	if _, err := f.root.ExecContext(tctx(t), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// open opens an engine as user through Open, as every command does.
func (f *pgFixture) open(t *testing.T, user, password string) Engine {
	t.Helper()
	host, port, _ := strings.Cut(f.srv.Addr(), ":")
	return open(t)(Open(Endpoint{Engine: Postgres, Addr: host + ":" + port, Database: f.db,
		User: user, Password: password, Params: "sslmode=disable"}))
}

func TestPostgresGenericScanning(t *testing.T) {
	f := newPostgres(t)
	f.exec(t, `CREATE TABLE types (si SMALLINT, i INT, bi BIGINT, dec1 NUMERIC(12,2), fl REAL, db DOUBLE PRECISION,
		vc VARCHAR(20), tx TEXT, d DATE, ts TIMESTAMP(3), bo BOOLEAN, by BYTEA, js JSONB, nul VARCHAR(3))`)
	f.exec(t, `INSERT INTO types VALUES (32767, 2147483647, -9223372036854775808, 1234567890.10, 0.1, 2.5e-300,
		'héllo <b>', 'long text', '2024-02-29', '2024-02-29 23:59:58.125', TRUE, '\x00ff10', '{"k": [1, 2]}', NULL)`)
	e := f.open(t, "postgres", "")
	res := mustQuery(t, e, "SELECT * FROM types", Limits{})
	wantCols := []Column{
		{"si", "INT2"}, {"i", "INT4"}, {"bi", "INT8"}, {"dec1", "NUMERIC(12,2)"}, {"fl", "FLOAT4"}, {"db", "FLOAT8"},
		{"vc", "VARCHAR"}, {"tx", "TEXT"}, {"d", "DATE"}, {"ts", "TIMESTAMP"}, {"bo", "BOOL"}, {"by", "BYTEA"},
		{"js", "JSONB"}, {"nul", "VARCHAR"},
	}
	want := []any{
		int64(32767), int64(2147483647), int64(-9223372036854775808), json.Number("1234567890.10"), 0.1, 2.5e-300,
		"héllo <b>", "long text", "2024-02-29", "2024-02-29 23:59:58.125", true, "0x00ff10", `{"k": [1, 2]}`, nil,
	}
	checkRow(t, res, wantCols, want)
}

// The reader user of the lab's users.sql may read and nothing else: the
// second lock, without the engine's read-only session.
func TestPostgresReaderUser(t *testing.T) {
	f := newPostgres(t)
	user, pw := f.srv.NewUser(t, f.db)
	f.srv.Exec(t, f.db, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO "`+user+`"`)
	cfg, err := pgx.ParseConfig(f.srv.URL(user, pw, f.db))
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if _, err := db.ExecContext(tctx(t), "DELETE FROM t"); err == nil {
		t.Error("the reader may delete")
	}
	e := f.open(t, user, pw)
	if res := mustQuery(t, e, "SELECT count(*) AS n FROM t", Limits{}); res.Rows[0][0] != int64(3) {
		t.Errorf("got %v", res.Rows)
	}
}
