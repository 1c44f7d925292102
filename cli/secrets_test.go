package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/query"
)

// TestRenderEnvFile: render --env-file sets the lab's passwords in .env,
// and what runs the lab (its endpoints, as run, console and the native
// stack read .env) uses them; the same file renders the same bytes; a key
// that is not one of the lab's passwords is a usage error listing them.
func TestRenderEnvFile(t *testing.T) {
	tmp := t.TempDir()
	secrets := filepath.Join(tmp, "secrets.env")
	if err := os.WriteFile(secrets, []byte("# mine\nMYSQL_READER_PASSWORD=s3cret-R\nexport CLICKHOUSE_READER_PASSWORD='ch.r~1'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	if code, _, errOut := run(t, tmp, nil, "render", "../labs/orders", "--out", out, "--env-file", secrets); code != ExitOK {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	first, err := os.ReadFile(filepath.Join(out, ".env"))
	if err != nil {
		t.Fatal(err)
	}
	lab, err := labdir.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := lab.ResolveEndpoints(nil, labdir.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got := eps.DB[query.MySQL].Password; got != "s3cret-R" {
		t.Errorf("the MySQL reader's password is %q, want the one of --env-file", got)
	}
	if got := eps.DB[query.ClickHouse].Password; got != "ch.r~1" {
		t.Errorf("the ClickHouse reader's password is %q, want the one of --env-file", got)
	}
	if lab.Env[labdir.MySQLAppPassword] != "labgen-app" {
		t.Errorf("a password --env-file does not name changed: %q", lab.Env[labdir.MySQLAppPassword])
	}
	if code, _, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", out, "--env-file", secrets); code != ExitOK {
		t.Fatalf("render again: exit %d: %s", code, errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(out, ".env")); string(again) != string(first) {
		t.Errorf("rendering again with the same --env-file changed .env:\n%s\n%s", first, again)
	}

	if err := os.WriteFile(secrets, []byte("MYSQL_READER_PASSWORD=x\nMYSQL_PASS=y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", out, "--env-file", secrets)
	if code != ExitUsage || !strings.Contains(errOut, "MYSQL_PASS is not a key of the lab's .env; the lab's passwords are MYSQL_ROOT_PASSWORD, MYSQL_APP_PASSWORD") {
		t.Errorf("unknown key: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, tmp, nil, "render", "../labs/orders", "-o", out, "--env-file", filepath.Join(tmp, "none.env"))
	if code != ExitUsage || !strings.Contains(errOut, "--env-file DIR/none.env: no such file") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
}
