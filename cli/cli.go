// Package cli is labgen's command line: it parses arguments, calls the
// packages that do the work and turns their results into output and an
// exit code. Commands return errors; nothing here calls os.Exit.
package cli

import (
	"al.essio.dev/pkg/shellescape"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mattn/go-isatty"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

// Exit codes: the one table of them is ExitCodes.
const (
	ExitOK        = 0
	ExitLabErrors = 1 // the lab has errors (or fmt -check found changes)
	ExitUsage     = 2 // the command line is wrong, or a path it names is not what the command reads
	ExitRunFailed = 3 // a run, a step or a service failed, or nothing could be checked
)

// ExitCode is one of labgen's exit codes: Short for the one-line list of
// labgen --help, Meaning for docs/cli.md.
type ExitCode struct {
	Code           int
	Short, Meaning string
}

// ExitCodes is the table of labgen's exit codes, the same for every
// command; labgen --help and docs/cli.md print it from here.
var ExitCodes = []ExitCode{
	{ExitOK, "ok", "ok: the command did what it was asked (a run: every step ran without error)"},
	{ExitLabErrors, "the lab has errors", "the lab has errors: validate or render found diagnostics (printed as FILE:LINE:COL), the engines rejected a statement (validate --engines, run), or fmt -check found unformatted files"},
	{ExitUsage, "usage or wrong path", "usage: an unknown command or flag (with a \"Did you mean\" hint), a missing or extra argument, a bad flag value, or a path that is not what the command reads: no lab directory, no rendered lab directory (no lab.json), no lab record (the message lists the records that are there)"},
	{ExitRunFailed, "a run failed", "a run failed: a step, a service or a job submission failed, the command was interrupted (Ctrl-C or SIGTERM, also during validate, render or fmt), --strict found an expectation that did not hold (or a blind one under --controls), validate --engines could check nothing at all, or something outside labgen failed (Docker, Java, a database, the disk)"},
}

// exitCodesLine is the exit codes on one line, for labgen --help.
func exitCodesLine() string {
	var parts []string
	for _, c := range ExitCodes {
		parts = append(parts, fmt.Sprintf("%d %s", c.Code, c.Short))
	}
	return "Exit codes: " + strings.Join(parts, ", ") + "."
}

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
	// Argv is the command line as typed, program name included (nil in
	// tests: "labgen" and the arguments). A record keeps it quoted.
	Argv []string
	// args are the arguments RunEnv was given (without the program).
	args []string
}

// commandLine is the command as typed, quoted for a shell: what a
// record says ran, so a reader can run it again.
func (e *Env) commandLine() string {
	argv := e.Argv
	if argv == nil {
		argv = append([]string{"labgen"}, e.args...)
	}
	return shellescape.QuoteCommand(argv)
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
	env := &Env{Stdout: stdout, Stderr: stderr, Stdin: os.Stdin, Environ: os.Environ(), Argv: append([]string{os.Args[0]}, args...)}
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
	env.args = args
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
		fmt.Fprintf(env.Stderr, "labgen %s: %s\n", cmd.name, flagError(err, fs, args[1:]))
		fmt.Fprintf(env.Stderr, "Usage: labgen %s %s (see labgen %s --help)\n", cmd.name, cmd.args, cmd.name)
		return ExitUsage
	}
	err = run(ctx, positional)
	var ue *usageError
	var ee *exitError
	var nr *labdir.NotRenderedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "labgen %s: %s\n", cmd.name, ue.msg)
		fmt.Fprintf(env.Stderr, "Usage: labgen %s %s (see labgen %s --help)\n", cmd.name, cmd.args, cmd.name)
		return ExitUsage
	case errors.As(err, &nr):
		// A path that is no rendered lab directory is the command line's
		// mistake, whichever command met it.
		fmt.Fprintf(env.Stderr, "labgen %s: %s\n", cmd.name, notRenderedMsg(nr))
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

// flagError is the flag package's parse error in labgen's words: an
// unknown flag names the command's closest flag (one hint, as for
// commands), spelt with as many dashes as the user gave.
func flagError(err error, fs *flag.FlagSet, args []string) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err.Error()
	}
	dashes := "-"
	for _, a := range args {
		if a == "--" {
			break
		}
		if n, _, _ := strings.Cut(a, "="); n == "--"+name {
			dashes = "--"
			break
		}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	hint := ""
	if c := schemas.DidYouMean(name, names); c != "" {
		// " Did you mean NAME?" with the dashes.
		hint = strings.Replace(c, "mean ", "mean "+dashes, 1)
	}
	return fmt.Sprintf("unknown flag %s%s.%s", dashes, name, hint)
}

// notRenderedMsg says what to do when a command that reads a rendered lab
// directory was given something else: the lab's source, a directory
// without lab.json, or a path that is not there (with the closest
// directory beside it).
func notRenderedMsg(nr *labdir.NotRenderedError) string {
	dir := nr.Dir
	switch {
	case nr.Source:
		return fmt.Sprintf("%s is a lab's source, not a rendered lab directory; render it first (labgen render %s -o out/NAME) and give that directory", dir, dir)
	case !exists(dir):
		return fmt.Sprintf("%s does not exist; give a directory labgen render wrote (labgen render LAB_DIR -o %s).%s", dir, dir, siblingHint(dir))
	}
	return fmt.Sprintf("%s is not a rendered lab directory: it has no lab.json (labgen render LAB_DIR -o %s writes one)", dir, dir)
}

// siblingHint is " Did you mean X?" for the entry beside path (in its
// parent directory) closest to its name, or "".
func siblingHint(path string) string {
	parent, base := filepath.Split(filepath.Clean(path))
	if parent == "" {
		parent = "."
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	c := schemas.DidYouMean(base, names)
	if c == "" {
		return ""
	}
	// Name the whole path, as the user typed its parent.
	name := strings.TrimSuffix(strings.TrimPrefix(c, " Did you mean "), "?")
	if p, _ := filepath.Split(path); p != "" {
		name = filepath.Join(p, name)
	}
	return " Did you mean " + name + "?"
}

// labDirArg checks that dir, a lab's source directory, is there: a path
// that is not is the command line's mistake (exit 2), not the lab's.
func labDirArg(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return usagef("no lab directory %s: give the directory of the lab's .hcl files (e.g. labs/orders).%s", dir, siblingHint(dir))
	case err != nil:
		return err
	case !st.IsDir():
		return usagef("%s is a file; give the lab's directory (%s)", dir, filepath.Dir(dir))
	}
	return nil
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
	for _, c := range visibleCommands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'labgen <command> --help' for a command's arguments and examples.
`)
	fmt.Fprintln(w, exitCodesLine())
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
// exit code 1 when the lab has errors, and with ctx's error (an
// interrupt, exit code 3) as soon as the loader sees ctx end.
func loadLab(ctx context.Context, env *Env, dir string, vars []schemas.VarArg) (*schemas.Lab, hcl.Diagnostics, error) {
	lab, diags, _, err := loadLabParser(ctx, env, dir, vars)
	return lab, diags, err
}

// loadLabParser is loadLab that also returns the parser, which holds the
// lab's files for later diagnostics.
func loadLabParser(ctx context.Context, env *Env, dir string, vars []schemas.VarArg) (*schemas.Lab, hcl.Diagnostics, *schemas.Parser, error) {
	return loadLabOptions(ctx, env, dir, schemas.Options{Vars: vars, Environ: env.Environ})
}

// loadLabOptions is loadLabParser with the loader's options spelt out
// (validate adds the lints).
func loadLabOptions(ctx context.Context, env *Env, dir string, opts schemas.Options) (*schemas.Lab, hcl.Diagnostics, *schemas.Parser, error) {
	if err := labDirArg(dir); err != nil {
		return nil, nil, nil, err
	}
	for _, v := range opts.Vars {
		if _, err := os.Stat(v.File); v.File != "" && errors.Is(err, iofs.ErrNotExist) {
			return nil, nil, nil, usagef("-var-file %s: no such file", v.File)
		}
	}
	p := schemas.NewParser()
	lab, diags := p.LoadContext(ctx, dir, opts)
	if err := ctx.Err(); err != nil {
		return nil, nil, p, err // interrupted: what the load said is beside the point
	}
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
