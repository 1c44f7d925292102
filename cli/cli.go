// Package cli is labgen's command line: it parses arguments, calls the
// packages that do the work and turns their results into output and an
// exit code. Commands return errors; nothing here calls os.Exit.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mattn/go-isatty"

	"github.com/labgen/labgen/schemas"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitLabErrors = 1 // the lab has errors (or fmt -check found changes)
	ExitUsage     = 2
	ExitRunFailed = 3 // a run, a step or a service failed
)

// Version is set at build time with -ldflags "-X .../cli.Version=..."
// (make build: git describe); otherwise it is the module's version or
// VCS revision Go stamped into the binary, and "dev" only when there is
// neither.
var Version = "dev"

func init() {
	if Version == "dev" {
		Version = buildVersion()
	}
}

// buildVersion reads what go build or go install stamped: a module
// version (go install …@v1.2.3) or the commit it was built from.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}

// Env is what a command may touch of the outside world; tests replace it.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Environ        []string
	// Terminal tells whether Stderr is an interactive terminal, for
	// progress lines and colour.
	Terminal bool
}

type command struct {
	name    string
	args    string
	summary string
	help    string
	// hidden commands are left out of the command list (internal ones).
	hidden bool
	// setup declares the command's flags and returns its run function.
	setup func(fs *flag.FlagSet, env *Env) func(ctx context.Context, args []string) error
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

// usageError is a mistake in the command line: exit 2 with a hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries a specific exit code, already reported to the user.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Run runs labgen with args (without the program name) and returns the
// exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr, Stdin: os.Stdin, Environ: os.Environ()}
	if f, ok := stderr.(*os.File); ok {
		env.Terminal = isatty.IsTerminal(f.Fd())
	}
	return RunEnv(ctx, args, env)
}

// RunEnv is Run with an explicit environment.
func RunEnv(ctx context.Context, args []string, env *Env) (code int) {
	defer func() {
		// A bug must not show a user a goroutine dump; say what happened.
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "labgen: internal error: %v\nThis is a bug in labgen; please report it with the command you ran.\n", r)
			code = ExitRunFailed
		}
	}()
	if len(args) == 0 {
		printUsage(env.Stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return RunEnv(ctx, []string{args[1], "--help"}, env)
		}
		printUsage(env.Stdout)
		return ExitOK
	case "-v", "-version", "--version", "version":
		fmt.Fprintf(env.Stdout, "labgen %s\n", Version)
		return ExitOK
	}
	var cmd *command
	for _, c := range commands {
		if c.name == args[0] {
			cmd = c
		}
	}
	if cmd == nil {
		var names []string
		for _, c := range commands {
			names = append(names, c.name)
		}
		// The hint, not the whole help: the mistake stays on screen.
		fmt.Fprintf(env.Stderr, "labgen: unknown command %q.%s\nRun 'labgen help' for the list of commands.\n", args[0], schemas.DidYouMean(args[0], names))
		return ExitUsage
	}
	fs := flag.NewFlagSet("labgen "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := cmd.setup(fs, env)
	positional, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(env.Stdout, cmd, fs)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "labgen %s: %v\n", cmd.name, err)
		fmt.Fprintf(env.Stderr, "Usage: labgen %s %s (see labgen %s --help)\n", cmd.name, cmd.args, cmd.name)
		return ExitUsage
	}
	err = run(ctx, positional)
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "labgen %s: %s\n", cmd.name, ue.msg)
		fmt.Fprintf(env.Stderr, "Usage: labgen %s %s (see labgen %s --help)\n", cmd.name, cmd.args, cmd.name)
		return ExitUsage
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(env.Stderr, "labgen %s: %s\n", cmd.name, ee.msg)
		}
		return ee.code
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(env.Stderr, "labgen %s: interrupted\n", cmd.name)
		return ExitRunFailed
	default:
		fmt.Fprintf(env.Stderr, "labgen %s: %v\n", cmd.name, err)
		return ExitRunFailed
	}
}

// parseInterspersed lets flags come after positional arguments, as in
// labgen validate labs/orders -var order_rate=50.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `labgen turns a streaming-data lab written in HCL into a runnable lab
directory, and runs it into a record of what it observed.

Usage: labgen <command> [arguments]

Commands:
`)
	cs := append([]*command(nil), commands...)
	sort.SliceStable(cs, func(i, j int) bool { return order(cs[i].name) < order(cs[j].name) })
	for _, c := range cs {
		if c.hidden {
			continue
		}
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'labgen <command> --help' for a command's arguments and examples.
Exit codes: 0 ok, 1 the lab has errors, 2 usage, 3 a run failed.
`)
}

// order lists commands in the order a newcomer uses them.
func order(name string) int {
	for i, n := range []string{"validate", "fmt", "render", "produce", "up", "status", "run", "smoke", "batch", "console", "record", "down"} {
		if n == name {
			return i
		}
	}
	return 100
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: labgen %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.help))
	var flags []string
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	if len(flags) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			arg := "-" + f.Name
			if name != "" {
				arg += " " + name
			}
			def := ""
			// A usage that already says its default (the lab's seed) keeps
			// its own words.
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && !strings.Contains(usage, "(default") {
				def = fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(w, "  %-22s %s%s\n", arg, usage, def)
		})
	}
}

// varFlags collects -var and -var-file in command-line order, since later
// ones win.
type varFlags struct{ args *[]schemas.VarArg }

type varFlag struct{ v varFlags }

func (f varFlag) String() string { return "" }
func (f varFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("-var takes NAME=VALUE, not %q", s)
	}
	*f.v.args = append(*f.v.args, schemas.VarArg{Name: name, Value: value})
	return nil
}

type varFileFlag struct{ v varFlags }

func (f varFileFlag) String() string { return "" }
func (f varFileFlag) Set(s string) error {
	*f.v.args = append(*f.v.args, schemas.VarArg{File: s})
	return nil
}

// addVarFlags declares -var and -var-file.
func addVarFlags(fs *flag.FlagSet) *[]schemas.VarArg {
	args := &[]schemas.VarArg{}
	v := varFlags{args}
	fs.Var(varFlag{v}, "var", "set a variable: `NAME=VALUE` (repeatable; later wins)")
	fs.Var(varFileFlag{v}, "var-file", "read variables from an HCL `FILE` of NAME = VALUE lines (repeatable)")
	return args
}

// loadLab loads and validates a lab, printing diagnostics; it fails with
// exit code 1 when the lab has errors.
func loadLab(env *Env, dir string, vars []schemas.VarArg) (*schemas.Lab, hcl.Diagnostics, error) {
	lab, diags, _, err := loadLabParser(env, dir, vars)
	return lab, diags, err
}

// loadLabParser is loadLab that also returns the parser, which holds the
// lab's files for later diagnostics.
func loadLabParser(env *Env, dir string, vars []schemas.VarArg) (*schemas.Lab, hcl.Diagnostics, *schemas.Parser, error) {
	return loadLabOptions(env, dir, schemas.Options{Vars: vars, Environ: env.Environ})
}

// loadLabOptions is loadLabParser with the loader's options spelt out
// (validate adds the lints).
func loadLabOptions(env *Env, dir string, opts schemas.Options) (*schemas.Lab, hcl.Diagnostics, *schemas.Parser, error) {
	p := schemas.NewParser()
	lab, diags := p.Load(dir, opts)
	if len(diags) > 0 {
		writeDiags(env, p, diags)
	}
	if diags.HasErrors() {
		return nil, diags, p, &exitError{code: ExitLabErrors, msg: errorCount(diags)}
	}
	return lab, diags, p, nil
}

func errorCount(diags hcl.Diagnostics) string {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	if n == 1 {
		return "the lab has 1 error"
	}
	return fmt.Sprintf("the lab has %d errors", n)
}

// writeDiags prints each diagnostic as FILE:LINE:COL: followed by hcl's
// own rendering with the source snippet, so editors can jump to it.
func writeDiags(env *Env, p *schemas.Parser, diags hcl.Diagnostics) {
	writeDiagFiles(env, p.Files(), diags)
}

// writeDiagFiles is writeDiags over files (name → contents).
func writeDiagFiles(env *Env, files map[string]*hcl.File, diags hcl.Diagnostics) {
	w := hcl.NewDiagnosticTextWriter(env.Stderr, files, 78, env.Terminal)
	for _, d := range diags {
		if d.Subject != nil {
			fmt.Fprintf(env.Stderr, "%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		_ = w.WriteDiagnostic(d)
	}
}
