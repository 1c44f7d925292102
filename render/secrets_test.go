package render_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/render/kube"
	"github.com/labgen/labgen/schemas"
)

// TestSecrets: passwords given at render time replace .env's defaults and
// change nothing else but the lock (every other file reads them from .env);
// the same secrets give the same bytes; keys that are not the lab's
// passwords, and values that cannot be carried as they are, are errors
// that say which keys there are.
func TestSecrets(t *testing.T) {
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	opts := render.Options{NoSource: true, Targets: []render.Target{kube.Target(kube.Options{Brokers: 1})}}
	plain, err := render.Render(lab, opts)
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"MYSQL_READER_PASSWORD": "r3ad-Er.x~", "CLICKHOUSE_PASSWORD": "ch_Admin-2"}
	opts.Secrets = secrets
	a, err := render.Render(lab, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := render.Render(lab, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range a.Paths() {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two renders with the same secrets", p)
		}
		changed := !bytes.Equal(a[p], plain[p])
		switch p {
		case ".env", "labgen.lock", "kubernetes/lab.env":
			if !changed {
				t.Errorf("%s did not change with the secrets", p)
			}
		default:
			if changed {
				t.Errorf("%s changed with the secrets; only .env (and what copies or hashes it) should", p)
			}
		}
		for _, v := range secrets {
			if p != ".env" && p != "kubernetes/lab.env" && bytes.Contains(a[p], []byte(v)) {
				t.Errorf("%s holds a password; only .env may", p)
			}
		}
	}
	env := string(a[".env"])
	for _, want := range []string{"\nMYSQL_READER_PASSWORD=r3ad-Er.x~\n", "\nCLICKHOUSE_PASSWORD=ch_Admin-2\n", "\nMYSQL_APP_PASSWORD=labgen-app\n",
		"# Chosen at render time (labgen render --env-file): CLICKHOUSE_PASSWORD, MYSQL_READER_PASSWORD.\n"} {
		if !strings.Contains(env, want) {
			t.Errorf(".env lacks %q:\n%s", want, env)
		}
	}

	for _, c := range []struct {
		secrets map[string]string
		want    string
	}{
		{map[string]string{"MYSQL_PASSWORD": "x"}, "MYSQL_PASSWORD is not a key of the lab's .env; the lab's passwords are MYSQL_ROOT_PASSWORD, MYSQL_APP_PASSWORD, MYSQL_CDC_PASSWORD, MYSQL_READER_PASSWORD, CLICKHOUSE_PASSWORD, CLICKHOUSE_READER_PASSWORD"},
		{map[string]string{"MYSQL_APP_USER": "me"}, "MYSQL_APP_USER is not a password"},
		{map[string]string{"COMPOSE_PROJECT_NAME": "me"}, "COMPOSE_PROJECT_NAME is not a password"},
		{map[string]string{"MYSQL_APP_PASSWORD": ""}, "MYSQL_APP_PASSWORD is empty"},
		{map[string]string{"MYSQL_APP_PASSWORD": "a'b"}, "MYSQL_APP_PASSWORD has characters other than letters, digits and - _ . ~"},
		{map[string]string{"MYSQL_APP_PASSWORD": "a b"}, "MYSQL_APP_PASSWORD has characters other than"},
		{map[string]string{"MYSQL_APP_PASSWORD": "p@ss"}, "MYSQL_APP_PASSWORD has characters other than"},
	} {
		_, err := render.Render(lab, render.Options{NoSource: true, Secrets: c.secrets})
		var se *render.SecretsError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want a SecretsError with %q", c.secrets, err, c.want)
		}
	}
}

// TestSecretFilesClosed (issue 35): every rendered file that holds a
// password (.env and kubernetes/lab.env) is written 0600, and every
// other one is readable by the containers' users.
func TestSecretFilesClosed(t *testing.T) {
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	secret := "s3cret-Only.here"
	files, err := render.Render(lab, render.Options{NoSource: true, Secrets: map[string]string{"MYSQL_APP_PASSWORD": secret},
		Targets: []render.Target{kube.Target(kube.Options{Brokers: 1})}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := render.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range files.Paths() {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		holds := bytes.Contains(files[p], []byte(secret))
		if closed := fi.Mode().Perm()&0o077 == 0; holds != closed {
			t.Errorf("%s: mode %v; holds a password: %v", p, fi.Mode().Perm(), holds)
		}
		if holds {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d files hold the password; want .env and kubernetes/lab.env", n)
	}
}

// TestSecretsPostgres: a lab on PostgreSQL has its own passwords.
func TestSecretsPostgres(t *testing.T) {
	lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", "orders_pg"), schemas.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files, err := render.Render(lab, render.Options{NoSource: true, Secrets: map[string]string{"POSTGRES_CDC_PASSWORD": "cdc-2"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(files[".env"]), "\nPOSTGRES_CDC_PASSWORD=cdc-2\n") {
		t.Errorf(".env:\n%s", files[".env"])
	}
}

// No rendered command puts a password on a command line, where every
// process list shows it: clients read theirs from the environment
// (clickhouse-client: CLICKHOUSE_USER and CLICKHOUSE_PASSWORD) or a file.
func TestNoPasswordOnCommandLines(t *testing.T) {
	for _, dir := range []string{"orders", "orders_pg", "sensors"} {
		lab, diags := schemas.NewParser().Load(filepath.Join("..", "labs", dir), schemas.Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		files, err := render.Render(lab, render.Options{NoSource: true, Targets: []render.Target{kube.Target(kube.Options{Brokers: 1})}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range files.Paths() {
			for i, line := range strings.Split(string(files[p]), "\n") {
				if strings.Contains(line, "--password \"$") || strings.Contains(line, "--password=$") || strings.Contains(line, "--password $") {
					t.Errorf("%s: %s:%d passes a password on a command line: %s", dir, p, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
