package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labgen/labgen/render"
)

func init() {
	register(&command{
		name:    "render",
		args:    "LAB_DIR -o OUT_DIR [-var NAME=VALUE ...] [-var-file FILE ...]",
		summary: "write a self-contained lab directory (compose, SQL, runbook, lab.json)",
		help: `
Validates LAB_DIR and writes the lab it describes into OUT_DIR: compose.yaml
for the whole stack, SQL for every engine, the Flink and labgen images, the
stream-lab script, runbook.md, lab.json (the resolved lab that run, produce
and console read) and labgen.lock (images, connector jars and the sha256 of
every file).

Rendering is deterministic: the same lab and variables give the same bytes
on any machine. Rendering again into OUT_DIR replaces the files labgen
wrote there before and removes those it no longer writes; records/ and any
other file of yours are left alone.

Only Docker is needed to run the result:
  cd OUT_DIR && ./stream-lab compose up -d --build && ./stream-lab smoke

Examples:
  labgen render labs/orders -o out/orders
  labgen render labs/orders -o out/orders-fast -var order_rate=50 -var payment_delay=10s
  labgen render labs/orders -o out/orders-small -var lakes=false`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			out := fs.String("o", "", "the `OUT_DIR` to write (required)")
			return func(_ context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("render takes one lab directory")
				}
				if *out == "" {
					return usagef("say where to write the lab with -o OUT_DIR")
				}
				if abs, err := filepath.Abs(*out); err == nil {
					if src, err := filepath.Abs(args[0]); err == nil && abs == src {
						return usagef("-o must not be the lab directory itself")
					}
				}
				lab, _, err := loadLab(env, args[0], *vars)
				if err != nil {
					return err
				}
				files, err := render.Render(lab, render.Options{LabgenVersion: Version})
				if err != nil {
					return err
				}
				if err := os.MkdirAll(*out, 0o755); err != nil {
					return err
				}
				if err := render.Write(*out, files); err != nil {
					return fmt.Errorf("writing %s: %w", *out, err)
				}
				fmt.Fprintf(env.Stdout, "Rendered the lab %q into %s (%d files).\nNext: cd %s && ./stream-lab compose up -d --build && ./stream-lab smoke\n",
					lab.Name, *out, len(files), *out)
				if line := render.FormatBudget(render.MemoryBudget(lab)); line != "" {
					fmt.Fprintln(env.Stdout, line)
				}
				return nil
			}
		},
	})
}
