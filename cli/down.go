package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/labgen/labgen/runtime/labdir"
	"github.com/labgen/labgen/runtime/native"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// hasCompose tells whether docker can run the lab's compose file here;
// without it, down means the native stack.
func hasCompose(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "compose.yaml")); err != nil {
		return false
	}
	_, err := exec.LookPath("docker")
	return err == nil
}

func init() {
	register(&command{
		name:    "down",
		args:    "OUT [--kubernetes [--kubectl PATH]] [--volumes]",
		summary: "stop and remove a rendered lab's services",
		help: `
Runs docker compose down in the rendered lab directory OUT: the containers
and networks go; the named volumes (databases, checkpoints, lake
warehouses) stay unless --volumes is given. Records under OUT/records are
never touched. For a native stack (labgen up --native) it stops the
supervised processes; --volumes then removes OUT/.native (data, logs,
checkpoints, lake warehouses).

With --kubernetes it deletes the objects of the lab's Kubernetes base
with kubectl (its volume claims only with --volumes).

Examples:
  labgen down out/orders
  labgen down out/orders --kubernetes
  labgen down out/orders --volumes`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			volumes := fs.Bool("volumes", false, "remove the lab's named volumes too (all its data)")
			k8s := fs.Bool("kubernetes", false, "delete the lab's Kubernetes objects with kubectl (--volumes: its volume claims too)")
			kubectl := fs.String("kubectl", "", "with --kubernetes: the kubectl `PATH` (default: kubectl from PATH)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("down takes one rendered lab directory")
				}
				if *k8s {
					return kubeDown(ctx, env, args[0], kubeOptions{kubectl: *kubectl}, *volumes)
				}
				// The native stack when one runs or ran here (its state is
				// there), or when compose cannot run at all.
				if lay, err := native.NewLayout(args[0]); err == nil && (lay.Running() || exists(lay.State) || !hasCompose(args[0])) {
					if err := labdir.Check(args[0]); err != nil {
						return err
					}
					msg, err := native.Down(ctx, lay, *volumes)
					if err != nil {
						return &exitError{code: ExitRunFailed, msg: err.Error()}
					}
					fmt.Fprintln(env.Stdout, msg)
					return nil
				}
				c, err := openCompose(args[0])
				if err != nil {
					return err
				}
				out, err := c.Down(ctx, *volumes)
				if s := strings.TrimSpace(out); s != "" && err == nil {
					fmt.Fprintln(env.Stderr, s)
				}
				if err != nil {
					return &exitError{code: ExitRunFailed, msg: err.Error()}
				}
				what := "The lab is down; its volumes are kept."
				if *volumes {
					what = "The lab is down and its volumes are removed."
				}
				fmt.Fprintln(env.Stdout, what)
				return nil
			}
		},
	})
}
