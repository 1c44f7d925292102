package enginecheck_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
	"github.com/labgen/labgen/runtime/enginecheck"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// TestDatabases EXPLAINs the presets and static query steps of a small
// lab on real MariaDB, PostgreSQL and ClickHouse servers: as written they
// pass; with a misspelt column or table each comes back at its line and
// column in presets/*.sql or the .hcl heredoc.
func TestDatabases(t *testing.T) {
	my, pg, ch := testsrv.MariaDB(t), testsrv.Postgres(t), testsrv.ClickHouse(t)
	mdb, mdsn := my.NewDatabase(t)
	db, err := sql.Open("mysql", mdsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE readings (device_id BIGINT, temperature DOUBLE, measured_at DATETIME(3))"); err != nil {
		t.Fatal(err)
	}
	pdb, _ := pg.NewDatabase(t)
	pg.Exec(t, pdb, "CREATE TABLE readings (device_id BIGINT, temperature DOUBLE PRECISION, measured_at TIMESTAMP(3))")
	cdb, _ := ch.NewDatabase(t)
	ch.Exec(t, "CREATE TABLE "+cdb+".readings (device_id Int64, temperature Float64, measured_at DateTime) ENGINE = MergeTree ORDER BY device_id")
	opt := enginecheck.Options{DB: map[string]query.Endpoint{
		query.MySQL:      {Engine: query.MySQL, Addr: my.Addr(), User: "root", Database: mdb},
		query.Postgres:   {Engine: query.Postgres, Addr: pg.Addr(), User: "postgres", Database: pdb, Params: "sslmode=disable"},
		query.ClickHouse: {Engine: query.ClickHouse, Addr: ch.NativeAddr(), User: "default", Database: cdb},
	}}
	run := func(t *testing.T, dir string) *enginecheck.Result {
		p := schemas.NewParser()
		lab, diags := p.Load(dir, schemas.Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		o := opt
		o.Source = p.SQLSourceAt
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := enginecheck.Check(ctx, lab, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Checked {
			t.Logf("checked: %s", c)
		}
		for _, c := range res.NotChecked {
			t.Logf("not checked: %s", c)
		}
		return res
	}

	t.Run("as written", func(t *testing.T) {
		res := run(t, filepath.Join("testdata", "dbs"))
		for _, d := range res.Diags {
			t.Errorf("%s: %s: %s", at(d), d.Summary, d.Detail)
		}
		if len(res.Checked) != 5 {
			t.Errorf("checked %v, want MySQL, PostgreSQL and ClickHouse, and the DDL of the first two", res.Checked)
		}
		var left string
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name LIKE 'labgen_check_%'").Scan(&left); err != nil || left != "0" {
			t.Errorf("scratch databases left on MariaDB: %s %v", left, err)
		}
	})

	t.Run("reader", func(t *testing.T) {
		user, password := my.NewUser(t, "SELECT ON `"+mdb+"`.*")
		o := opt
		o.DB = map[string]query.Endpoint{query.MySQL: {Engine: query.MySQL, Addr: my.Addr(), User: user, Password: password, Database: mdb}}
		p := schemas.NewParser()
		lab, _ := p.Load(filepath.Join("testdata", "dbs"), schemas.Options{})
		res, err := enginecheck.Check(context.Background(), lab, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diags) != 0 || !strings.Contains(strings.Join(res.NotChecked, "\n"), "may not create a scratch database") {
			t.Errorf("diags %v, not checked %q", res.Diags, res.NotChecked)
		}
	})

	t.Run("rejected", func(t *testing.T) {
		// Each edit and the text the diagnostic must point at.
		edits := []struct {
			edit
			at string
		}{
			{edit{"presets/mysql_recent.sql", "device_id, temperature", "device_id, temprature"}, "temprature"},
			{edit{"presets/postgres_recent.sql", "device_id, temperature", "device_id, temprature"}, "temprature"},
			{edit{"presets/clickhouse_recent.sql", "device_id, temperature", "device_id, temprature"}, "temprature"},
			// (A misspelt table is the loader's error, before any engine.)
			{edit{"lab.hcl", "      SELECT device_id,\n", "      SELECT devize_id,\n"}, "devize_id"},
			// Too long for a MySQL VARCHAR in utf8mb4 (PostgreSQL takes it).
			{edit{"lab.hcl", `"string(200)"`, `"string(20000)"`}, `column "note"`},
		}
		var list []edit
		for _, e := range edits {
			list = append(list, e.edit)
		}
		dir := copyLab(t, filepath.Join("testdata", "dbs"), list)
		res := run(t, dir)
		want := map[string]bool{}
		for _, e := range edits {
			b, _ := os.ReadFile(filepath.Join(dir, e.file))
			i := strings.Index(string(b), e.at)
			line := 1 + strings.Count(string(b[:i]), "\n")
			col := i - strings.LastIndex(string(b[:i]), "\n")
			want[fmt.Sprintf("%s:%d:%d", filepath.Base(e.file), line, col)] = true
		}
		got := map[string]bool{}
		for _, d := range res.Diags {
			t.Logf("%s: %s\n%s", at(d), d.Summary, d.Detail)
			got[at(d)] = true
		}
		for w := range want {
			if !got[w] {
				t.Errorf("no diagnostic at %s", w)
			}
		}
		if len(res.Diags) != len(want) {
			t.Errorf("%d diagnostics, want %d", len(res.Diags), len(want))
		}
	})
}
