package labdir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/schemas"
)

func TestEndpointsFromLab(t *testing.T) {
	l := labdirtest.Load(t, &schemas.Lab{Name: "x", Stack: &schemas.Stack{
		MySQL:      &schemas.MySQL{Database: "shop", Port: 3307},
		ClickHouse: &schemas.ClickHouse{Database: "analytics", TCPPort: 9001},
		Kafka:      &schemas.Kafka{Port: 9093},
		Flink:      &schemas.Flink{UIPort: 8082, GatewayPort: 8084},
	}}, map[string]string{".env": "# secrets\nMYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD='p@ss w'\nexport CLICKHOUSE_READER_USER=\"ro\"\nCLICKHOUSE_READER_PASSWORD=chpw\n"})
	e := l.Endpoints(nil)
	if e.MySQL != "reader:p@ss w@tcp(127.0.0.1:3307)/shop" {
		t.Errorf("mysql %q", e.MySQL)
	}
	if e.ClickHouse != (query.ClickHouseOptions{Addr: "127.0.0.1:9001", Database: "analytics", User: "ro", Password: "chpw"}) {
		t.Errorf("clickhouse %+v", e.ClickHouse)
	}
	if e.Kafka[0] != "127.0.0.1:9093" || e.Flink != "http://127.0.0.1:8082" || e.Gateway != "http://127.0.0.1:8084" {
		t.Errorf("%+v", e)
	}
	o, err := labdir.ParseClickHouse("clickhouse://u:secret@h:1/db", e.ClickHouse)
	if err != nil || o.Addr != "h:1" || o.User != "u" || o.Password != "secret" || o.Database != "db" {
		t.Errorf("%+v %v", o, err)
	}
	if o, _ := labdir.ParseClickHouse("h:2", e.ClickHouse); o.Addr != "h:2" || o.User != "ro" {
		t.Errorf("%+v", o)
	}
	if _, err := labdir.ParseClickHouse("ftp://u:secret@h:1", e.ClickHouse); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad URL: %v", err)
	}
	if len(l.Secrets()) != 2 || !strings.HasPrefix(l.Hash(), "sha256:") {
		t.Errorf("secrets %v, hash %s", l.Secrets(), l.Hash())
	}
	os.Remove(filepath.Join(l.Dir, "lab.json"))
	if _, err := labdir.Load(l.Dir); err == nil || !strings.Contains(err.Error(), "render the lab first") {
		t.Errorf("missing lab.json: %v", err)
	}
}

// The environment's variables win over .env's; the app user is there for
// the producer; a stack without a service leaves its endpoint empty.
func TestEnvironmentAndUsers(t *testing.T) {
	l := labdirtest.Load(t, &schemas.Lab{Name: "x", Stack: &schemas.Stack{
		MySQL: &schemas.MySQL{Database: "shop", Port: 3306},
	}}, map[string]string{".env": "MYSQL_APP_USER=app\nMYSQL_APP_PASSWORD=app-pw # set by render\nMYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD=pw\nCLICKHOUSE_READER_USER=ro\n"})
	if !l.HasEnv {
		t.Error("HasEnv is false")
	}
	environ := []string{"MYSQL_READER_PASSWORD=first", "MYSQL_READER_PASSWORD=from-env", "CLICKHOUSE_READER_USER="}
	e := l.Endpoints(environ)
	if e.MySQL != "reader:from-env@tcp(127.0.0.1:3306)/shop" {
		t.Errorf("mysql %q", e.MySQL)
	}
	if e.ClickHouse != (query.ClickHouseOptions{}) || e.Kafka != nil || e.Flink != "" || e.Gateway != "" {
		t.Errorf("services the stack lacks: %+v", e)
	}
	// An empty variable in the environment does not hide .env's.
	if c := l.ClickHouseReader(environ); c.User != "ro" || c.Addr != "" {
		t.Errorf("ClickHouse reader %+v", c)
	}
	if cfg := l.MySQLConfig(labdir.MySQLAppUser, labdir.MySQLAppPassword, nil); cfg.User != "app" || cfg.Passwd != "app-pw" || cfg.Addr != "127.0.0.1:3306" || cfg.DBName != "shop" {
		t.Errorf("app user %+v", cfg)
	}
	if a := l.ConsoleAddr(); a != "127.0.0.1:8088" {
		t.Errorf("console %s", a)
	}
}

func TestNotRendered(t *testing.T) {
	empty := t.TempDir()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "lab.hcl"), []byte(`lab "x" {}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir    string
		source bool
	}{{empty, false}, {src, true}} {
		_, err := labdir.Load(c.dir)
		var nr *labdir.NotRenderedError
		if !errors.As(err, &nr) || nr.Source != c.source || nr.Dir != c.dir {
			t.Errorf("Load(%s): %v (%+v)", c.dir, err, nr)
		}
		if err := labdir.Check(c.dir); !errors.As(err, &nr) || nr.Source != c.source {
			t.Errorf("Check(%s): %v", c.dir, err)
		}
	}
}

func TestReadEnv(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".env")
	os.WriteFile(p, []byte("# c\n\nA=1\nexport B = two words\nC=\"quoted # kept\"\nD=x # comment\nE='single'\n"), 0o600)
	env, err := labdir.ReadEnv(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two words", "C": "quoted # kept", "D": "x", "E": "single"}
	if len(env) != len(want) {
		t.Errorf("%v", env)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	os.WriteFile(p, []byte("A=1\nnonsense\n"), 0o600)
	if _, err := labdir.ReadEnv(p); err == nil || !strings.Contains(err.Error(), ".env:2: not KEY=VALUE") {
		t.Errorf("bad line: %v", err)
	}
}
