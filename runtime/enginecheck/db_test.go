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
		if len(res.Checked) != 3 {
			t.Errorf("checked %v, want MySQL, PostgreSQL and ClickHouse", res.Checked)
		}
	})

	t.Run("misspelt", func(t *testing.T) {
		edits := map[string][2]string{
			"presets/mysql_recent.sql":      {"device_id, temperature", "device_id, temprature"},
			"presets/postgres_recent.sql":   {"device_id, temperature", "device_id, temprature"},
			"presets/clickhouse_recent.sql": {"device_id, temperature", "device_id, temprature"},
			"lab.hcl":                       {"      FROM readings\n", "      FROM readingz\n"},
		}
		dir := copyLab(t, filepath.Join("testdata", "dbs"), edits)
		res := run(t, dir)
		want := map[string]bool{}
		for file, e := range edits {
			b, _ := os.ReadFile(filepath.Join(dir, file))
			word := "temprature"
			if file == "lab.hcl" {
				word = "readingz"
			}
			i := strings.Index(string(b), word)
			line := 1 + strings.Count(string(b[:i]), "\n")
			col := i - strings.LastIndex(string(b[:i]), "\n")
			want[fmt.Sprintf("%s:%d:%d", filepath.Base(file), line, col)] = true
			_ = e
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
