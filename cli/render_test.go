package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir"
)

// TestRenderRefuses (issue 35): render writes into a directory of the
// user's only with --force, keeps the user's files and modes, and never
// into the root of the file system.
func TestRenderRefuses(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "h")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("MY_TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-o", home}, ExitUsage, "labgen render: DIR/h holds .env, which no labgen render wrote (it has no labgen.lock): render into a new or empty directory, or pass --force to write beside it"},
		{[]string{"-o", "/"}, ExitUsage, "-o / is the root of the file system"},
		{[]string{"-o", "/", "--force"}, ExitUsage, "-o / is the root of the file system"},
	} {
		code, _, errOut := run(t, tmp, nil, append([]string{"render", "../labs/orders"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("render %v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".env")); string(b) != "MY_TOKEN=x\n" {
		t.Errorf("a refused render changed the user's .env: %q", b)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 1 {
		t.Errorf("a refused render wrote into the directory: %v", ents)
	}

	code, stdout, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", home, "--force")
	if code != ExitOK {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Kept your files that the render replaced: .env → .env.orig.", "DIR/h has mode 0700: the lab's containers that read the whole directory"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--force says\n%s\nwithout %q", stdout, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".env.orig")); string(b) != "MY_TOKEN=x\n" {
		t.Errorf("the user's .env was not kept as .env.orig: %q", b)
	}
	for p, want := range map[string]os.FileMode{".": 0o700, ".env": 0o600, ".env.orig": 0o600, "compose.yaml": 0o644, "stream-lab": 0o755, "scripts": 0o755} {
		if fi, err := os.Stat(filepath.Join(home, p)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	// The directory is a render's now: a render without --force goes in.
	if code, _, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", home); code != ExitOK {
		t.Errorf("a second render: exit %d: %s", code, errOut)
	}
}

// TestRenderProjectPerDirectory (issue 35): two directories of one lab
// are two compose projects (down --volumes in one keeps the other's
// data), named the same in .env, compose.yaml and the runbook, and the
// same directory renders the same bytes again.
func TestRenderProjectPerDirectory(t *testing.T) {
	tmp := t.TempDir()
	projects := map[string]string{}
	for _, out := range []string{"a", "b"} {
		dir := filepath.Join(tmp, out)
		code, stdout, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", dir)
		if code != ExitOK {
			t.Fatalf("render: exit %d: %s", code, errOut)
		}
		lab, err := labdir.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := lab.Env["COMPOSE_PROJECT_NAME"]
		compose, _ := os.ReadFile(filepath.Join(dir, "compose.yaml"))
		runbook, _ := os.ReadFile(filepath.Join(dir, "runbook.md"))
		if !strings.HasPrefix(p, "labgen-orders-") || !strings.Contains(string(compose), "\nname: "+p+"\n") || !strings.Contains(string(runbook), "`"+p+"`") ||
			!strings.Contains(stdout, "compose project "+p+")") {
			t.Errorf("%s: project %q is not in compose.yaml, the runbook and the output:\n%s", out, p, stdout)
		}
		projects[out] = p
	}
	if projects["a"] == projects["b"] {
		t.Errorf("two directories share the compose project %s", projects["a"])
	}
	dir := filepath.Join(tmp, "a")
	lock, _ := os.ReadFile(filepath.Join(dir, "labgen.lock"))
	if code, stdout, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", dir); code != ExitOK || strings.Contains(stdout, "The compose project was") {
		t.Fatalf("render again: exit %d: %s%s", code, stdout, errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "labgen.lock")); string(again) != string(lock) {
		t.Errorf("the same lab rendered into the same directory changed")
	}

	// A directory rendered before projects had its name says so.
	env, _ := os.ReadFile(filepath.Join(dir, ".env"))
	old := strings.Replace(string(env), "COMPOSE_PROJECT_NAME="+projects["a"], "COMPOSE_PROJECT_NAME=labgen-orders", 1)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, tmp, nil, "render", "../labs/orders", "-o", dir)
	if code != ExitOK || !strings.Contains(stdout, "The compose project was labgen-orders: a stack still up under that name stops with docker compose -p labgen-orders down") {
		t.Errorf("render over an old project: exit %d: %s%s", code, stdout, errOut)
	}
}
