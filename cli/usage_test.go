package cli

import (
	"flag"
	"io"
	"regexp"
	"testing"
)

// TestUsageListsEveryFlag: each command's usage line (the one printed
// with every usage error and atop its --help, and in docs/cli.md) names
// every flag the command accepts, so that nobody learns of a flag only by
// reading the source.
func TestUsageListsEveryFlag(t *testing.T) {
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.setup(fs, &Env{Stdout: io.Discard, Stderr: io.Discard})
		fs.VisitAll(func(f *flag.Flag) {
			re := regexp.MustCompile(`(^|[\s\[|(])--?` + regexp.QuoteMeta(f.Name) + `($|[\s\]|)=])`)
			if !re.MatchString(c.args) {
				t.Errorf("labgen %s: the usage line %q does not name -%s", c.name, c.args, f.Name)
			}
		})
	}
}

// TestFlagHint: a misspelt flag names the command's closest flag, with the
// dashes the user typed, and no list of all flags.
func TestFlagHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "../labs/orders", "--outt", "x"}, "unknown flag --outt. Did you mean --out?"},
		{[]string{"run", "x", "--contrl"}, "unknown flag --contrl. Did you mean --controls?"},
		{[]string{"run", "x", "-strct"}, "unknown flag -strct. Did you mean -strict?"},
		{[]string{"validate", "-force", "x"}, "unknown flag -force.\n"},
	} {
		code, out, errOut := run(t, "", nil, c.args...)
		if code != ExitUsage || out != "" || !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(errOut) || regexp.MustCompile(`\n  -`).MatchString(errOut) {
			t.Errorf("%q: exit %d\nstdout %s\nstderr %s\nwant %q", c.args, code, out, errOut, c.want)
		}
	}
}
