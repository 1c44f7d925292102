package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/render/kube"
)

func init() {
	register(&command{
		name:    "render",
		args:    "LAB_DIR -o OUT_DIR [--target kubernetes [-brokers N]] [-var NAME=VALUE ...] [-var-file FILE ...]",
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

With --target kubernetes it also writes OUT_DIR/kubernetes/, a kustomize
base of the same lab for a cluster with the Strimzi and Flink Kubernetes
operators (see the README's Kubernetes section); -brokers sets the number
of Kafka brokers there.

Only Docker is needed to run the result:
  cd OUT_DIR && ./stream-lab compose up -d --build && ./stream-lab smoke

Examples:
  labgen render labs/orders -o out/orders
  labgen render labs/orders -o out/orders-fast -var order_rate=50 -var payment_delay=10s
  labgen render labs/orders -o out/orders-small -var lakes=false
  labgen render labs/orders -o out/orders --target kubernetes -brokers 3`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			out := fs.String("o", "", "the `OUT_DIR` to write (required)")
			target := fs.String("target", "compose", "`FACE` to render besides compose: compose (only) or kubernetes")
			brokers := fs.Int("brokers", 1, "Kafka brokers of the kubernetes target")
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
				opts := render.Options{LabgenVersion: Version}
				switch *target {
				case "compose":
				case "kubernetes", "k8s":
					if *brokers < 1 {
						return usagef("-brokers must be at least 1")
					}
					opts.Targets = append(opts.Targets, kube.Target(kube.Options{Brokers: *brokers}))
				default:
					return usagef("--target is compose or kubernetes, not %q", *target)
				}
				lab, _, err := loadLab(env, args[0], *vars)
				if err != nil {
					return err
				}
				files, err := render.Render(lab, opts)
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
