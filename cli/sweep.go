package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
		args:    "LAB_DIR -o|--out OUT_DIR -var NAME=A,B,… [-var NAME=A,B,… …] [-var-file FILE] [--experiment N|NAME …] [--repeat K] [--native] [--controls]",
		summary: "run a lab's variants one after another and compare their records",
		help: `
sweep renders every variant of a lab (the cross product of the values
each -var lists, comma-separated) into OUT_DIR/<variant>/, runs each on
the native stack, one after another (each brought up from nothing and
taken down after its run, so that no variant inherits another's state),
and publishes OUT_DIR/index.html: each measure of the experiments (their
findings) per variant, as the mean over its runs with the least and
greatest value, and charted against the swept variable; each compare
step's declared and observed distributions of every variant overlaid;
OUT_DIR/compare.html, the records side by side (measures, verdicts, the
variables that differ); and one page per record (OUT_DIR/<variant>.html).

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
				return sweep(ctx, env, args[0], *out, variants, exps, *repeat, *controls)
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

func sweep(ctx context.Context, env *Env, labDir, out string, variants []variant, exps []string, repeat int, controls bool) error {
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, format+"\n", a...) }
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
			rec, err := sweepOne(ctx, env, labDir, dir, v, exps, controls, k == 1)
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
		page, err := writeSweep(out, recs, names, swept, groups)
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

// sweepOne renders a variant (the first time) and runs it on a fresh
// native stack, which it takes down again; it returns the run's record.
func sweepOne(ctx context.Context, env *Env, labDir, dir string, v variant, exps []string, controls, fresh bool) (*record.Record, error) {
	if fresh {
		lab, _, err := loadLab(env, labDir, v.vars)
		if err != nil {
			return nil, err
		}
		files, err := render.Render(lab, render.Options{LabgenVersion: Version})
		if err != nil {
			return nil, err
		}
		if err := writeRendered(dir, files); err != nil {
			return nil, err
		}
	}
	before := recordDirs(dir)
	runErr := runLab(ctx, env, dir, &endpointFlags{}, runConfig{experiments: exps, native: true, submit: true, check: true, source: labDir, controls: controls, controlCap: runner.DefaultControlCap}, "run")
	if lay, err := native.NewLayout(dir); err == nil && lay.Running() {
		down, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		if _, err := native.Down(down, lay, true); err != nil && runErr == nil {
			runErr = fmt.Errorf("taking the stack down: %w", err)
		}
		cancel()
	}
	var rec *record.Record
	for d := range recordDirs(dir) {
		if !before[d] {
			r, err := record.Read(d)
			if err == nil {
				rec = r
			}
		}
	}
	return rec, runErr
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
func writeSweep(out string, recs []*record.Record, names, swept []string, groups []publish.SweepVariant) (string, error) {
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
	if b, err = publish.Sweep(swept, groups, "compare.html"); err != nil {
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
