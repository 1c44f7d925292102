package render

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/labgen/labgen/internal/testsrv"
)

func TestMain(m *testing.M) { testsrv.Main(m) }

// envValues reads the rendered .env.
func envValues(t *testing.T, files Files) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(string(files[".env"]), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// TestMySQLDDLOnMariaDB applies the rendered schema and users to a real
// server and checks what they promise: the tables with their columns and
// keys, a producer user that can write, and a reader that cannot.
func TestMySQLDDLOnMariaDB(t *testing.T) {
	srv := testsrv.MariaDB(t)
	files := renderSeed(t, nil)
	env := envValues(t, files)
	// Each test gets its own database name: rewrite the lab's.
	dbName, _ := srv.NewDatabase(t)
	schema := strings.ReplaceAll(string(files["sql/mysql/schema.sql"]), "`shop`", "`"+dbName+"`")
	users := strings.ReplaceAll(string(files["sql/mysql/users.sql"]), "`shop`", "`"+dbName+"`")
	// Users are server-wide: make their names unique to this test.
	for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
		env[k] = env[k] + "_" + dbName
	}
	users = os.Expand(users, func(k string) string { return env[k] })
	// MariaDB spells a plugin with a password differently; its default
	// plugin is mysql_native_password anyway, so plain BY means the same.
	users = strings.ReplaceAll(users, "IDENTIFIED WITH mysql_native_password BY", "IDENTIFIED BY")
	t.Cleanup(func() {
		db, err := sql.Open("mysql", srv.RootDSN())
		if err == nil {
			for _, k := range []string{"MYSQL_APP_USER", "MYSQL_CDC_USER", "MYSQL_READER_USER"} {
				db.Exec("DROP USER IF EXISTS '" + env[k] + "'@'%'")
			}
			db.Close()
		}
	})

	root, err := sql.Open("mysql", srv.RootDSN()+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, text := range map[string]string{"schema.sql": schema, "users.sql": users} {
		if _, err := root.Exec(text); err != nil {
			t.Fatalf("sql/mysql/%s on MariaDB: %v", name, err)
		}
	}
	// Applying the schema twice must work: init scripts may run again.
	if _, err := root.Exec(schema); err != nil {
		t.Fatalf("schema.sql a second time: %v", err)
	}

	lab := loadSeed(t, nil)
	for _, tb := range lab.Tables {
		if tb.Store("mysql") == nil {
			continue
		}
		rows, err := root.Query("SELECT column_name, column_type, is_nullable, column_key FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position", dbName, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var name, typ, nullable, key string
			if err := rows.Scan(&name, &typ, &nullable, &key); err != nil {
				t.Fatal(err)
			}
			if i >= len(tb.Columns) {
				t.Errorf("%s has an extra column %s", tb.Name, name)
				continue
			}
			c := tb.Columns[i]
			if name != c.Name {
				t.Errorf("%s column %d is %s, want %s", tb.Name, i, name, c.Name)
			}
			if want := strings.ToLower(c.Type.MySQL()); !strings.HasPrefix(typ, strings.TrimSuffix(want, "(0)")) && !(want == "boolean" && typ == "tinyint(1)") {
				t.Errorf("%s.%s has type %s, want %s", tb.Name, name, typ, want)
			}
			if (nullable == "YES") != c.Nullable {
				t.Errorf("%s.%s nullable = %s, want %v", tb.Name, name, nullable, c.Nullable)
			}
			if isKey := key == "PRI"; isKey != contains(tb.Key, name) {
				t.Errorf("%s.%s key = %q, want key %v", tb.Name, name, key, contains(tb.Key, name))
			}
			i++
		}
		rows.Close()
		if i != len(tb.Columns) {
			t.Errorf("%s has %d columns, want %d", tb.Name, i, len(tb.Columns))
		}
	}

	app, err := sql.Open("mysql", srv.DSN(env["MYSQL_APP_USER"], env["MYSQL_APP_PASSWORD"], dbName))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.Exec("INSERT INTO orders VALUES (1, 7, 'books', 12.50, 'CREATED', NOW(3), NOW(3))"); err != nil {
		t.Errorf("the producer's user cannot write: %v", err)
	}
	reader, err := sql.Open("mysql", srv.DSN(env["MYSQL_READER_USER"], env["MYSQL_READER_PASSWORD"], dbName))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var n int
	if err := reader.QueryRow("SELECT COUNT(*) FROM orders").Scan(&n); err != nil || n != 1 {
		t.Errorf("the reader sees %d orders (err %v), want 1", n, err)
	}
	if _, err := reader.Exec("DELETE FROM orders"); err == nil {
		t.Errorf("the reader could delete")
	}
	var grants string
	cdc, err := sql.Open("mysql", srv.DSN(env["MYSQL_CDC_USER"], env["MYSQL_CDC_PASSWORD"], ""))
	if err != nil {
		t.Fatal(err)
	}
	defer cdc.Close()
	if err := cdc.QueryRow("SHOW GRANTS").Scan(&grants); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"REPLICATION", "SELECT"} {
		if !strings.Contains(strings.ToUpper(grants), g) {
			t.Errorf("the CDC user's grants %q lack %s", grants, g)
		}
	}
}
