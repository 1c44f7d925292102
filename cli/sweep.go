package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/labgen/labgen/publish"
	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/runtime/native"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/runtime/runner"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "sweep",
		args:    "LAB_DIR -o|--out OUT_DIR -var NAME=A,B,… [-var NAME=A,B,… …] [-var-file FILE] [--experiment N|NAME …] [--repeat K] [--native] [--controls] [--fresh]",
		summary: "run a lab's variants one after another and compare their records",
		help: `
sweep renders every variant of a lab (the cross product of the values
each -var lists, comma-separated) into OUT_DIR/<variant>/ and runs them
one after another on one native stack, in OUT_DIR/stack/: each variant
is rendered there in turn, and its run restarts only what the variant
changed since the previous one (each service whose inputs changed: the
producer for a producer's variable, Flink's JobManager and TaskManagers
for a Flink setting or their memory; the streaming jobs whose SQL changed
are cancelled and submitted again, and those lost with a restarted
JobManager are submitted again). When a variant runs another set of
services (-var lakes=false), the stack is taken down and brought up
fresh. Each run's record is moved into OUT_DIR/<variant>/records/; the
stack is taken down, its state removed, at the end.

What stays on one stack: the data the previous variants wrote (the
orders and payments in the database, the rows in Kafka and ClickHouse,
the lake tables) is still there when the next variant runs, and a
streaming job that was not changed keeps running with its state. A
restarted producer resumes after the last row written and takes over the
follow-ups (payments) its old process left pending, but computes them
with the new variant's distributions: an order of the previous variant
whose payment was still due gets the new delay (written at once when
that is already past, or never when the order is older than the new
longest delay). Experiments that capture their own rows (the IDs they
choose, waits on new rows) see only their variant's; one that reads
whole tables sees the earlier variants' rows too. --fresh brings a fresh
stack up for each variant and takes it down after its run, as before:
slower (about a minute to healthy per variant) but no variant sees
another's data.

It publishes OUT_DIR/index.html: each measure of the experiments (their
findings) per variant, as the median over its runs with the least and
greatest value (as labgen run --repeat's set has them), and charted
against the swept variable; each compare step's declared and observed
distributions of every variant overlaid;
OUT_DIR/compare.html, the records side by side (measures, verdicts, the
variables that differ); and one page per record (OUT_DIR/<variant>.html).
Variants that would define a measure of the selected experiments
differently (a swept variable in what decides its value, such as the SQL
of a step it reads) are refused before anything runs.

A variant that fails is recorded as failed and the sweep goes on; the
exit code is 3 when any did. Progress says which variant of how many
runs, and from the second on, about how long the rest will take.
--repeat K runs each variant K times (records <variant>-1 … -K).

Only the native stack is supported (--native is the default and the only
face for now); variables that are not swept take the lab's defaults, or
-var-file's values.

Examples:
  labgen sweep labs/orders -o out/sweep -var payment_delay=5s,45s --experiment 3
  labgen sweep labs/orders -o out/rates -var order_rate=5,50,500 -var lakes=false --experiment 1 --repeat 2`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			out := fs.String("o", "", "the `OUT_DIR` to write the variants and the comparison into (required)")
			fs.StringVar(out, "out", "", "the same as -o `OUT_DIR`")
			var exps stringList
			fs.Var(&exps, "experiment", "run only experiment `N|NAME` (repeatable)")
			repeat := fs.Int("repeat", 1, "run each variant `K` times")
			fs.Bool("native", true, "run on the native stack (the only face a sweep uses for now)")
			controls := fs.Bool("controls", false, "also run each variant under its negative controls (labgen run --controls)")
			fresh := fs.Bool("fresh", false, "bring a fresh native stack up for each variant and take it down after its run (no data of another variant)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("sweep takes one lab directory")
				}
				if *out == "" {
					return usagef("say where to write the variants with -o OUT_DIR")
				}
				if *repeat < 1 {
					return usagef("--repeat must be at least 1")
				}
				variants, err := sweepVariants(*vars)
				if err != nil {
					return err
				}
				return sweep(ctx, env, args[0], *out, variants, exps, *repeat, *controls, *fresh)
			}
		},
	})
}

// variant is one point of a sweep: the variables it sets, its name.
type variant struct {
	name string
	vars []schemas.VarArg
}

// sweepVariants is the cross product of the -var lists (a value without a
// comma is the same in every variant), in the order given.
func sweepVariants(args []schemas.VarArg) ([]variant, error) {
	out := []variant{{}}
	swept := 0
	for _, a := range args {
		if a.File != "" || !strings.Contains(a.Value, ",") {
			for i := range out {
				out[i].vars = append(out[i].vars, a)
			}
			continue
		}
		swept++
		var next []variant
		for _, v := range out {
			for _, value := range strings.Split(a.Value, ",") {
				value = strings.TrimSpace(value)
				if value == "" {
					return nil, usagef("-var %s=%s: an empty value in the list", a.Name, a.Value)
				}
				vars := append(append([]schemas.VarArg(nil), v.vars...), schemas.VarArg{Name: a.Name, Value: value})
				name := v.name
				if name != "" {
					name += "_"
				}
				next = append(next, variant{name: name + a.Name + "-" + fileSafe(value), vars: vars})
			}
		}
		out = next
	}
	if swept == 0 {
		return nil, usagef("sweep needs at least one -var NAME=A,B,… with two or more values")
	}
	return out, nil
}

// fileSafe keeps a value usable in a directory name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
}

func sweep(ctx context.Context, env *Env, labDir, out string, variants []variant, exps []string, repeat int, controls, fresh bool) error {
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, format+"\n", a...) }
	if err := sweepDefinitions(ctx, env, labDir, variants, exps); err != nil {
		return err
	}
	stackDir := ""
	if !fresh {
		stackDir = filepath.Join(out, stackDirName)
		say("The variants run one after another on one native stack in %s: each run restarts only the services and streaming jobs its variant changes (--fresh: a stack per variant).", stackDir)
		defer func() {
			if err := sweepDown(ctx, stackDir); err != nil {
				say("%v", err)
			}
		}()
	}
	total := len(variants) * repeat
	began := time.Now()
	var recs []*record.Record
	var names, failed []string
	swept := sweptNames(variants)
	groups := make([]publish.SweepVariant, len(variants))
	n := 0
	for vi, v := range variants {
		groups[vi] = publish.SweepVariant{Name: v.name, Values: sweptValues(v, swept)}
		dir := filepath.Join(out, v.name)
		for k := 1; k <= repeat; k++ {
			n++
			name := v.name
			if repeat > 1 {
				name = fmt.Sprintf("%s-%d", v.name, k)
			}
			left := ""
			if n > 1 {
				per := time.Since(began) / time.Duration(n-1)
				left = fmt.Sprintf("; about %s left", (per * time.Duration(total-n+1)).Round(time.Minute))
			}
			say("== variant %d of %d: %s%s", n, total, varsText(v.vars), left)
			rec, err := sweepOne(ctx, env, labDir, dir, stackDir, v, exps, controls, k == 1)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				say("   variant %s failed: %v", name, err)
				failed = append(failed, name)
			}
			if rec != nil {
				recs, names = append(recs, rec), append(names, name)
				groups[vi].Records = append(groups[vi].Records, rec)
				groups[vi].Pages = append(groups[vi].Pages, name+".html")
			} else {
				groups[vi].Failed++
			}
		}
	}
	if len(recs) > 0 {
		page, err := writeSweep(out, recs, names, swept, groups, !fresh)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, page)
	}
	say("Swept %d variant(s) in %s.", total, time.Since(began).Round(time.Second))
	if len(failed) > 0 {
		return &exitError{code: ExitRunFailed, msg: fmt.Sprintf("%d of %d variant run(s) failed: %s (their records, where there are any, are on the page)", len(failed), total, strings.Join(failed, ", "))}
	}
	return nil
}

// sweepDefinitions refuses, before anything runs, a sweep whose variants
// define a measure of the selected experiments differently: a swept
// variable enters what decides its value (a query's SQL, a wait's
// interval), and the page would set values of two definitions side by
// side. A variant whose lab does not load is left to its own render to
// report.
func sweepDefinitions(ctx context.Context, env *Env, labDir string, variants []variant, exps []string) error {
	var uses []record.MeasureUse
	for _, v := range variants {
		lab, diags := schemas.NewParser().LoadContext(ctx, labDir, schemas.Options{Vars: v.vars, Environ: env.Environ})
		if err := ctx.Err(); err != nil {
			return err
		}
		if lab == nil || diags.HasErrors() {
			continue
		}
		for _, e := range lab.Experiments {
			if !experimentSelected(e, exps) {
				continue
			}
			for _, m := range e.Measures {
				uses = append(uses, record.MeasureUse{Holder: "variant " + v.name, Experiment: record.ExperimentLabel(e.Number, e.Name), Measure: m.Name, Definition: m.Definition})
			}
		}
	}
	if err := record.CheckDefinitions(uses); err != nil {
		return usagef("a swept variable changes what decides a measure's value: %v", err)
	}
	return nil
}

// experimentSelected tells whether --experiment N|NAME (none: every
// experiment) selects e, as labgen run reads it.
func experimentSelected(e *schemas.Experiment, exps []string) bool {
	if len(exps) == 0 {
		return true
	}
	for _, s := range exps {
		if runner.Selects(s, e) {
			return true
		}
	}
	return false
}

func varsText(vars []schemas.VarArg) string {
	var parts []string
	for _, a := range vars {
		if a.File != "" {
			parts = append(parts, "-var-file "+a.File)
		} else {
			parts = append(parts, a.Name+"="+a.Value)
		}
	}
	return strings.Join(parts, " ")
}

// stackDirName is the sweep's one native stack's lab directory, in OUT;
// no variant is named so (a variant's name is NAME-VALUE).
const stackDirName = "stack"

// sweepOne renders a variant into its directory (the first time) and
// runs it. With a stack directory, the variant is rendered there too and
// run on the native stack that runs there (started the first time; on a
// running one, labgen run restarts what the variant changed and submits
// again the jobs whose SQL changed), and the record is moved into the
// variant's records/. Without one, it runs in the variant's directory on
// a fresh native stack, which it takes down again. It returns the record.
func sweepOne(ctx context.Context, env *Env, labDir, dir, stackDir string, v variant, exps []string, controls, first bool) (*record.Record, error) {
	// Each directory is rendered for itself: its compose project is its own.
	var lab *schemas.Lab
	if first || stackDir != "" {
		var err error
		if lab, _, err = loadLab(ctx, env, labDir, v.vars); err != nil {
			return nil, err
		}
	}
	opts := render.Options{LabgenVersion: Version}
	if first {
		if _, _, err := renderInto(lab, opts, dir, false); err != nil {
			return nil, err
		}
	}
	runDir := dir
	if stackDir != "" {
		runDir = stackDir
		if _, _, err := renderInto(lab, opts, stackDir, false); err != nil {
			return nil, err
		}
	}
	before := recordDirs(runDir)
	runErr := runLab(ctx, env, runDir, &endpointFlags{}, runConfig{experiments: exps, native: true, submit: true, check: true, source: labDir, controls: controls, controlCap: runner.DefaultControlCap}, "run")
	if stackDir == "" {
		if err := sweepDown(ctx, dir); err != nil && runErr == nil {
			runErr = err
		}
	}
	newRecs := newRecords(runDir, before)
	if stackDir != "" {
		// The variant's record lives with the variant's files.
		var err error
		if newRecs, err = moveRecords(newRecs, filepath.Join(dir, "records")); err != nil {
			return nil, err
		}
		for _, d := range newRecs {
			fmt.Fprintf(env.Stderr, "   the record is moved to %s\n", d)
		}
	}
	var rec *record.Record
	for _, d := range newRecs {
		if r, err := record.Read(d); err == nil {
			rec = r
		}
	}
	return rec, runErr
}

// newRecords are the record directories of dir not in before, sorted.
func newRecords(dir string, before map[string]bool) []string {
	var out []string
	for d := range recordDirs(dir) {
		if !before[d] {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// moveRecords moves record directories into records and returns where
// they are now.
func moveRecords(dirs []string, records string) ([]string, error) {
	if err := os.MkdirAll(records, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		to := filepath.Join(records, filepath.Base(d))
		if err := os.Rename(d, to); err != nil {
			return out, err
		}
		out = append(out, to)
	}
	return out, nil
}

// sweepDown takes a sweep's native stack down and removes its state.
func sweepDown(ctx context.Context, dir string) error {
	lay, err := native.NewLayout(dir)
	if err != nil || !lay.Running() {
		return err
	}
	down, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if _, err := native.Down(down, lay, true); err != nil {
		return fmt.Errorf("taking the stack down: %w", err)
	}
	return nil
}

// recordDirs are the record directories of a rendered lab.
func recordDirs(dir string) map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir(filepath.Join(dir, "records"))
	for _, e := range entries {
		p := filepath.Join(dir, "records", e.Name())
		if exists(filepath.Join(p, record.JSONName)) {
			out[p] = true
		}
	}
	return out
}

// writeSweep publishes the sweep: a page per record, named by its
// variant; compare.html, every record side by side; and index.html, the
// variants' measures against the swept variables and their declared and
// observed distributions. It returns the page to open.
func writeSweep(out string, recs []*record.Record, names, swept []string, groups []publish.SweepVariant, shared bool) (string, error) {
	for i, r := range recs {
		b, err := publish.Page(r)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(out, names[i]+".html"), b, 0o644); err != nil {
			return "", err
		}
	}
	if len(recs) < 2 {
		return filepath.Join(out, names[0]+".html"), nil
	}
	b, err := publish.Comparison(recs, names)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(out, "compare.html"), b, 0o644); err != nil {
		return "", err
	}
	if b, err = publish.Sweep(swept, groups, "compare.html", shared); err != nil {
		return "", err
	}
	index := filepath.Join(out, "index.html")
	return index, os.WriteFile(index, b, 0o644)
}

// sweptNames are the variables whose values differ between the variants,
// in the order they were given.
func sweptNames(vs []variant) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range vs[0].vars {
		if a.File != "" || seen[a.Name] {
			continue
		}
		seen[a.Name] = true
		for _, v := range vs[1:] {
			if value(v, a.Name) != a.Value {
				out = append(out, a.Name)
				break
			}
		}
	}
	return out
}

// sweptValues are a variant's values of the swept variables.
func sweptValues(v variant, swept []string) []string {
	out := make([]string, len(swept))
	for i, n := range swept {
		out[i] = value(v, n)
	}
	return out
}

func value(v variant, name string) string {
	for _, a := range v.vars {
		if a.File == "" && a.Name == name {
			return a.Value
		}
	}
	return ""
}
