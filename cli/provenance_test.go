package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labgen/labgen/runtime/record"
)

// record publish warns of a record a development build made, and only of
// such a record; the page's head says what the build was.
func TestPublishWarnsOfDevBuild(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ version, warn string }{
		{"dev-0123456789ab-dirty", "was made by labgen dev-0123456789ab-dirty (a development build with uncommitted changes"},
		{"dev", "was made by labgen dev (a development build, not a release)"},
		{"v0.9.0", ""},
	} {
		r := &record.Record{Format: record.Format, ID: "r-" + strings.ReplaceAll(c.version, ".", "_"), Status: record.RunFinished,
			Lab: record.Lab{Name: "bikes"}, Labgen: c.version, Started: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC),
			Sessions: []record.Session{{Started: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), Status: record.RunFinished,
				Command: "bin/labgen run out/bikes --native", Where: "local (no CI variable set)",
				Host: &record.Host{Cores: 2, MemoryBytes: 24 << 30, OS: "Debian GNU/Linux 13 (trixie)", Kernel: "6.12.57", Arch: "amd64"}}}}
		rd := filepath.Join(dir, r.ID)
		if err := record.Write(rd, r, nil); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, dir, nil, "record", "publish", rd, "-o", filepath.Join(dir, "site-"+r.ID))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.version, code, errOut)
		}
		if c.warn == "" && strings.Contains(errOut, "warning") || c.warn != "" && !strings.Contains(errOut, c.warn) {
			t.Errorf("%s: stderr %q, want %q", c.version, errOut, c.warn)
		}
		// The head is a padded table: compare with single spaces.
		md := strings.Join(strings.Fields(string(record.Markdown(r))), " ")
		for _, want := range []string{"| labgen | " + record.DevBuildNote(c.version) + " |", "bin/labgen run out/bikes --native: finished",
			"| Ran in | local (no CI variable set) |", "| Host | 2 cores, 24.0 GiB memory, Debian GNU/Linux 13 (trixie), Linux 6.12.57, amd64 |"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: record.md lacks %q:\n%s", c.version, want, md)
			}
		}
	}
}

// run records the command line as typed, quoted for a shell.
func TestCommandLine(t *testing.T) {
	env := &Env{Argv: []string{"bin/labgen", "run", "out/my lab", "--experiment", "it's"}}
	if got, want := env.commandLine(), `bin/labgen run 'out/my lab' --experiment 'it'"'"'s'`; got != want {
		t.Errorf("command line %s, want %s", got, want)
	}
	env = &Env{args: []string{"run", "out/e2e"}}
	if got := env.commandLine(); got != "labgen run out/e2e" {
		t.Errorf("without argv: %s", got)
	}
}
