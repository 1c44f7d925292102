package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/render/kube"
	"github.com/labgen/labgen/runtime/labdir"
)

func init() {
	register(&command{
		name:    "render",
		args:    "LAB_DIR -o|--out OUT_DIR [--env-file FILE] [--target kubernetes [-brokers N] [-storage-class NAME] [-single-node] [-registry REGISTRY]] [-var NAME=VALUE ...] [-var-file FILE ...]",
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

Passwords: .env holds the users and passwords of the lab's services, the
same fixed defaults in every render (fine on one machine: every port binds
to 127.0.0.1). --env-file FILE replaces them: FILE's KEY=VALUE lines (as in
.env: # comments, optional quotes) set the passwords it names, keys ending
in _PASSWORD that the lab's .env has; any other key is an error that lists
them. Values are letters, digits and - _ . ~ only. Everything that needs a
password (compose, the native stack, run, produce, console, the Kubernetes
base) reads it from OUT_DIR/.env, and the same lab, variables and FILE
give the same bytes. The databases create their users on first start:
choose passwords before the first up, or take the lab down with --volumes
and up again after changing them. Render again with the same --env-file,
or the defaults come back.

With --target kubernetes it also writes OUT_DIR/kubernetes/, a kustomize
base of the same lab for a cluster with the Strimzi and Flink Kubernetes
operators (docs/kubernetes.md); -brokers sets the number of Kafka brokers
there. Its shared volumes (the lake warehouse, Flink's checkpoints) are
mounted by several pods: they need a ReadWriteMany storage class
(-storage-class NAME; the cluster's default otherwise), or -single-node
on kind or minikube, whose local-path provisioners give ReadWriteOnce only
(every pod runs on the one node). -registry REGISTRY names the lab's own
images REGISTRY/NAME:TAG, where you push them.

Only Docker is needed to run the result (or, without Docker, labgen up
OUT_DIR --native):
  cd OUT_DIR && ./stream-lab compose up -d --build && ./stream-lab smoke

Examples:
  labgen render labs/orders -o out/orders
  labgen render labs/orders -o out/orders-fast -var order_rate=50 -var payment_delay=10s
  labgen render labs/orders -o out/orders-small -var lakes=false
  labgen render labs/orders -o out/orders --target kubernetes -brokers 3
  labgen render labs/orders -o out/orders --target kubernetes -single-node -registry localhost:5001
  labgen render labs/orders -o out/orders --env-file secrets.env`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			out := fs.String("o", "", "the `OUT_DIR` to write (required)")
			fs.StringVar(out, "out", "", "the same as -o `OUT_DIR`")
			envFile := fs.String("env-file", "", "set the lab's passwords from `FILE` (KEY=VALUE lines; keys of .env ending in _PASSWORD)")
			target := fs.String("target", "compose", "`FACE` to render besides compose: compose (only) or kubernetes")
			brokers := fs.Int("brokers", 1, "the number `N` of Kafka brokers of the kubernetes target")
			storageClass := fs.String("storage-class", "", "the storage class `NAME` of the kubernetes target's shared claims (ReadWriteMany; default: the cluster's)")
			singleNode := fs.Bool("single-node", false, "kubernetes target: ReadWriteOnce shared claims, for one-node clusters (kind, minikube)")
			registry := fs.String("registry", "", "kubernetes target: pull the lab's images from `REGISTRY` (REGISTRY/NAME:TAG)")
			return func(ctx context.Context, args []string) error {
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
					opts.Targets = append(opts.Targets, kube.Target(kube.Options{Brokers: *brokers,
						StorageClass: *storageClass, SingleNode: *singleNode, Registry: *registry}))
				default:
					return usagef("--target is compose or kubernetes, not %q", *target)
				}
				if *target == "compose" && (*storageClass != "" || *singleNode || *registry != "") {
					return usagef("-storage-class, -single-node and -registry belong to --target kubernetes")
				}
				if *envFile != "" {
					secrets, err := labdir.ReadEnv(*envFile)
					if errors.Is(err, iofs.ErrNotExist) {
						return usagef("--env-file %s: no such file", *envFile)
					}
					if err != nil {
						return usagef("--env-file: %v", err)
					}
					opts.Secrets = secrets
				}
				lab, _, err := loadLab(ctx, env, args[0], *vars)
				if err != nil {
					return err
				}
				files, err := render.Render(lab, opts)
				var se *render.SecretsError
				if errors.As(err, &se) {
					return usagef("--env-file %s: %s", *envFile, se.Msg)
				}
				if err != nil {
					return err
				}
				if err := ctx.Err(); err != nil {
					return err // interrupted: write nothing
				}
				if err := writeRendered(*out, files); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "Rendered the lab %q into %s (%d files).\n", lab.Name, *out, len(files))
				if len(opts.Targets) > 0 {
					fmt.Fprintf(env.Stdout, "Next: labgen up %s --kubernetes (docs/kubernetes.md)\n", *out)
				} else {
					fmt.Fprintf(env.Stdout, "Next, without Docker: labgen run %s --native --lab %s\n  or with Docker: cd %s && ./stream-lab compose up -d --build && ./stream-lab smoke\n", *out, args[0], *out)
				}
				if line := render.FormatBudget(render.MemoryBudget(lab)); line != "" {
					fmt.Fprintln(env.Stdout, line)
				}
				return nil
			}
		},
	})
}

// writeRendered writes a rendered lab into dir (render, sweep).
func writeRendered(dir string, files render.Files) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := render.Write(dir, files); err != nil {
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	return nil
}
