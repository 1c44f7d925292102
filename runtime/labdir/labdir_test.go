package labdir_test

import (
	"errors"
	"fmt"
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
	if my := e.DB[query.MySQL]; my != (query.Endpoint{Engine: query.MySQL, Addr: "127.0.0.1:3307", Database: "shop", User: "reader", Password: "p@ss w"}) {
		t.Errorf("mysql %+v", my)
	}
	if ch := e.DB[query.ClickHouse]; ch != (query.Endpoint{Engine: query.ClickHouse, Addr: "127.0.0.1:9001", Database: "analytics", User: "ro", Password: "chpw"}) {
		t.Errorf("clickhouse %+v", ch)
	}
	if e.Kafka[0] != "127.0.0.1:9093" || e.Flink != "http://127.0.0.1:8082" || e.Gateway != "http://127.0.0.1:8084" {
		t.Errorf("%+v", e)
	}
	if len(l.Secrets()) != 2 || !strings.HasPrefix(l.Hash(), "sha256:") {
		t.Errorf("secrets %v, hash %s", l.Secrets(), l.Hash())
	}
	os.Remove(filepath.Join(l.Dir, "lab.json"))
	if _, err := labdir.Load(l.Dir); err == nil || !strings.Contains(err.Error(), "it is not a rendered lab directory") {
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
	if my := e.DB[query.MySQL]; my.String() != "reader:****@tcp(127.0.0.1:3306)/shop" || my.Password != "from-env" {
		t.Errorf("mysql %+v", my)
	}
	if _, ok := e.DB[query.ClickHouse]; ok || e.Kafka != nil || e.Flink != "" || e.Gateway != "" {
		t.Errorf("services the stack lacks: %+v", e)
	}
	if err := e.Unavailable(query.ClickHouse); err == nil || err.Error() != "no ClickHouse to query: the lab's stack has no clickhouse and --clickhouse was not given" {
		t.Errorf("ClickHouse unavailable: %v", err)
	}
	// An empty variable in the environment does not hide .env's.
	if c, ok := l.Endpoint(query.ClickHouse, labdir.Reader, environ); c.User != "ro" || c.Addr != "" || ok {
		t.Errorf("ClickHouse reader %+v", c)
	}
	if app, _ := l.Endpoint(query.MySQL, labdir.App, nil); app.User != "app" || app.Password != "app-pw" || app.Addr != "127.0.0.1:3306" || app.Database != "shop" {
		t.Errorf("app user %+v", app)
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

// Every command reads --mysql and --clickhouse here, in the same forms:
// host:port, a URL, a go-sql-driver DSN; what a value leaves out is the
// lab's.
func TestParseEndpoint(t *testing.T) {
	my := query.Endpoint{Engine: query.MySQL, Addr: "127.0.0.1:3306", Database: "shop", User: "reader", Password: "pw"}
	ch := query.Endpoint{Engine: query.ClickHouse, Addr: "127.0.0.1:9000", Database: "analytics", User: "ro", Password: "chpw"}
	for _, c := range []struct {
		engine, in string
		def        query.Endpoint
		want       query.Endpoint
	}{
		{query.MySQL, "db.local:3307", my, query.Endpoint{Engine: query.MySQL, Addr: "db.local:3307", Database: "shop", User: "reader", Password: "pw"}},
		{query.MySQL, "mysql://u:p%40ss@host:3306/db", my, query.Endpoint{Engine: query.MySQL, Addr: "host:3306", Database: "db", User: "u", Password: "p@ss"}},
		{query.MySQL, "mysql://host", my, query.Endpoint{Engine: query.MySQL, Addr: "host:3306", Database: "shop", User: "reader", Password: "pw"}},
		{query.MySQL, "mysql://u:p@host/db?tls=skip-verify", my, query.Endpoint{Engine: query.MySQL, Addr: "host:3306", Database: "db", User: "u", Password: "p", Params: "tls=skip-verify"}},
		{query.MySQL, "u:p@ss@tcp(mysql:3306)/other?parseTime=true", my, query.Endpoint{Engine: query.MySQL, Addr: "mysql:3306", Database: "other", User: "u", Password: "p@ss", Params: "parseTime=true"}},
		{query.MySQL, "tcp(h:1)/flagdb", my, query.Endpoint{Engine: query.MySQL, Addr: "h:1", Database: "flagdb", User: "reader", Password: "pw"}},
		{query.ClickHouse, "h:2", ch, query.Endpoint{Engine: query.ClickHouse, Addr: "h:2", Database: "analytics", User: "ro", Password: "chpw"}},
		{query.ClickHouse, "clickhouse://u:secret@h:1/db", ch, query.Endpoint{Engine: query.ClickHouse, Protocol: query.ClickHouseNative, Addr: "h:1", Database: "db", User: "u", Password: "secret"}},
		{query.ClickHouse, "https://h/db", ch, query.Endpoint{Engine: query.ClickHouse, Protocol: query.ClickHouseHTTP, Secure: true, Addr: "h:8443", Database: "db", User: "ro", Password: "chpw"}},
	} {
		got, err := labdir.ParseEndpoint(c.engine, c.in, c.def)
		if err != nil || got != c.want {
			t.Errorf("%s %q:\n got %+v, %v\nwant %+v", c.engine, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ engine, in string }{
		{query.ClickHouse, "ftp://u:secret@h:1"},
		{query.ClickHouse, "mysql://u:secret@h:1"},
		{query.MySQL, "clickhouse://u:secret@h:1"},
		{query.MySQL, "u:secret@unix(/tmp/sock)/db"},
		{query.MySQL, "u:secret@nonsense"},
		{query.MySQL, "not an address"},
	} {
		if _, err := labdir.ParseEndpoint(c.engine, c.in, my); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s %q: %v", c.engine, c.in, err)
		}
	}
	// An endpoint opens as its engine's driver configuration.
	cfg, err := query.Endpoint{Engine: query.MySQL, Addr: "h:1", Database: "d", User: "u", Password: "p", Params: "parseTime=true"}.MySQLConfig()
	if err != nil || cfg.FormatDSN() != "u:p@tcp(h:1)/d?parseTime=true" {
		t.Errorf("MySQL config %v, %v", cfg.FormatDSN(), err)
	}
}

// labgen run and console take the same values as labgen produce
// (issue 13: run rejected mysql://).
func TestResolveEndpoints(t *testing.T) {
	l := labdirtest.Load(t, &schemas.Lab{Name: "x", Stack: &schemas.Stack{
		MySQL: &schemas.MySQL{Database: "shop", Port: 3306},
	}}, map[string]string{".env": "MYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD=pw\n"})
	e, err := l.ResolveEndpoints(nil, labdir.Overrides{DB: map[string]string{query.MySQL: "mysql://u:p@host:3307/db", query.ClickHouse: "http://ch:8123"}, Kafka: "a:1,b:2"})
	if err != nil {
		t.Fatal(err)
	}
	if my := e.DB[query.MySQL]; my.Addr != "host:3307" || my.User != "u" || my.Database != "db" {
		t.Errorf("mysql %+v", my)
	}
	// A stack without ClickHouse, a flag without a user: no reader.
	if _, ok := e.DB[query.ClickHouse]; ok || !strings.Contains(e.Missing[query.ClickHouse], "no CLICKHOUSE_READER_USER in ") {
		t.Errorf("clickhouse %+v, %q", e.DB, e.Missing)
	}
	if len(e.Kafka) != 2 {
		t.Errorf("kafka %v", e.Kafka)
	}
	if _, err := l.ResolveEndpoints(nil, labdir.Overrides{DB: map[string]string{query.MySQL: "mysql://u:secret@"}}); err == nil || !strings.HasPrefix(err.Error(), "--mysql ") || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad --mysql: %v", err)
	}
}

// lab.json carries its format version; one this labgen does not read is
// refused with what to do, before anything else of it is used.
func TestFormatVersion(t *testing.T) {
	l := labdirtest.Load(t, &schemas.Lab{Name: "x", Stack: &schemas.Stack{}}, nil)
	p := filepath.Join(l.Dir, "lab.json")
	b, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(b), fmt.Sprintf("{\n  \"format\": %d,\n", schemas.LabJSONFormat)) {
		t.Fatalf("lab.json does not start with its format:\n%.80s", b)
	}
	for _, c := range []struct{ json, want string }{
		{`{"name": "x"}`, fmt.Sprintf("rendered by an older labgen (lab.json format 0; this labgen reads format %d): render the lab again", schemas.LabJSONFormat)},
		{`{"format": 99, "name": "x"}`, fmt.Sprintf("rendered by a newer labgen (lab.json format 99; this labgen reads format %d)", schemas.LabJSONFormat)},
		{`{"format": "one"}`, `format is "one", not a version number`},
	} {
		os.WriteFile(p, []byte(c.json), 0o644)
		_, err := labdir.Load(l.Dir)
		var fe *schemas.FormatError
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", c.json, err)
		} else if c.want[0] == 'r' && !errors.As(err, &fe) {
			t.Errorf("%s: not a *schemas.FormatError: %T", c.json, err)
		}
	}
}
