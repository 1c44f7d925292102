package cli

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/labgen/labgen/render"
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
checkpoints, lake warehouses, the MariaDB root password). --volumes acts
only on a directory labgen render wrote (its labgen.lock says so).

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
				if *volumes {
					if err := render.Owned(args[0]); err != nil {
						return usagef("%v: down --volumes removes data only from a directory that labgen render wrote; nothing was stopped or removed (without --volumes, labgen down %s stops the services and keeps their data)", err, args[0])
					}
				}
				return chooseFace(args[0], false, *k8s, *kubectl, nativeIfRan).Down(ctx, env, *volumes)
			}
		},
	})
}
