package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/labgen/labgen/render"
	"github.com/labgen/labgen/render/kube"
	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "render",
		args:    "LAB_DIR -o|--out OUT_DIR [--force] [--env-file FILE] [--target kubernetes [-brokers N] [-storage-class NAME] [-single-node] [-registry REGISTRY]] [-var NAME=VALUE ...] [-var-file FILE ...]",
		summary: "write a self-contained lab directory (compose, SQL, runbook, lab.json)",
		help: `
Validates LAB_DIR and writes the lab it describes into OUT_DIR: compose.yaml
for the whole stack, SQL for every engine, the Flink and labgen images, the
stream-lab script, runbook.md, lab.json (the resolved lab that run, produce
and console read) and labgen.lock (images, connector jars and the sha256 of
every file).

Rendering is deterministic: the same lab, variables and OUT_DIR give the
same bytes on any machine. The compose project is named after OUT_DIR
(labgen-LAB-<8 hex of its path's sha256>, in .env and compose.yaml), so
two rendered directories of one lab never share containers or volumes.

OUT_DIR must be new, empty, or a lab directory labgen rendered before (its
labgen.lock lists what it wrote); anything else is refused with the names
of the files found. Rendering again replaces the files the lock lists and
deletes those this render no longer writes, if they are still what labgen
wrote and lie inside OUT_DIR (no symbolic link on the way); the others are
left and named. records/, .native/ and any other file of yours are left
alone. --force renders into a directory with files of yours: each one the
render would replace is kept as NAME.orig; nothing of yours is deleted.
Everything is written into a temporary directory in OUT_DIR first and then
moved into place file by file: a render that fails before the moves leaves
the previous one as it was. No mode is widened: OUT_DIR keeps yours, a file
you tightened stays so; new directories are 0755, new files 0644, and .env
and kubernetes/lab.env (the passwords) 0600.

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
			force := fs.Bool("force", false, "write into OUT_DIR even though it holds files no labgen render wrote; each one the render would replace is kept as NAME.orig")
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
				dir, err := render.OutDir(*out)
				if err != nil {
					return err
				}
				if filepath.Dir(dir) == dir {
					return usagef("-o %s is the root of the file system; render into a directory of its own", *out)
				}
				if src, err := render.OutDir(args[0]); err == nil && dir == src {
					return usagef("-o must not be the lab directory itself")
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
				if err := ctx.Err(); err != nil {
					return err // interrupted: write nothing
				}
				oldProject := dotenvProject(*out)
				files, written, err := renderInto(lab, opts, *out, *force)
				var se *render.SecretsError
				if errors.As(err, &se) {
					return usagef("--env-file %s: %s", *envFile, se.Msg)
				}
				if err != nil {
					return err
				}
				project := render.ProjectName(lab, dir)
				fmt.Fprintf(env.Stdout, "Rendered the lab %q into %s (%d files; compose project %s).\n", lab.Name, *out, len(files), project)
				reportWritten(env, *out, written, oldProject, project)
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

// renderInto renders lab for dir (its compose project is dir's own) and
// writes it there (render, sweep). A directory WriteWith refuses is a
// usage error that says what to do.
func renderInto(lab *schemas.Lab, opts render.Options, dir string, force bool) (render.Files, *render.Written, error) {
	var err error
	if opts.Dir, err = render.OutDir(dir); err != nil {
		return nil, nil, err
	}
	files, err := render.Render(lab, opts)
	if err != nil {
		return nil, nil, err
	}
	written, err := render.WriteWith(dir, files, render.WriteOptions{Force: force})
	var re *render.RefusedError
	if errors.As(err, &re) {
		them, each := "them", "each"
		if len(re.Found) == 1 {
			them, each = "it", "it"
		}
		if re.Replace {
			return nil, nil, usagef("%v: move %s away, or pass --force to keep %s as NAME.orig", re, them, each)
		}
		return nil, nil, usagef("%v: render into a new or empty directory, or pass --force to write beside %s (each file of yours the render would replace is then kept as NAME.orig)", re, them)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", dir, err)
	}
	return files, written, nil
}

// dotenvProject is the compose project of dir's .env before a render, or "".
func dotenvProject(dir string) string {
	env, err := labdir.ReadEnv(filepath.Join(dir, ".env"))
	if err != nil {
		return ""
	}
	return env["COMPOSE_PROJECT_NAME"]
}

// reportWritten says, a line each, what a render did besides writing:
// the user's files it kept under another name, the old files it did not
// delete, a compose project that changed name, and a directory the
// lab's containers cannot read.
func reportWritten(env *Env, dir string, w *render.Written, oldProject, project string) {
	if len(w.Moved) > 0 {
		fmt.Fprintf(env.Stdout, "Kept your files that the render replaced: %s.\n", strings.Join(w.Moved, ", "))
	}
	if len(w.Kept) > 0 {
		fmt.Fprintf(env.Stdout, "Left %d file(s) that the old labgen.lock lists and this render no longer writes: %s.\n", len(w.Kept), strings.Join(w.Kept, ", "))
	}
	if oldProject != "" && oldProject != project {
		fmt.Fprintf(env.Stdout, "The compose project was %s: a stack still up under that name stops with docker compose -p %s down (add -v for its volumes).\n", oldProject, oldProject)
	}
	if w.Mode&0o005 != 0o005 {
		fmt.Fprintf(env.Stdout, "%s has mode %04o: the lab's containers that read the whole directory as their own user (producer, console) cannot; chmod o+rx %s before compose up (labgen up --native needs nothing).\n", dir, w.Mode, dir)
	}
}
