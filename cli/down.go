package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

func init() {
	register(&command{
		name:    "down",
		args:    "OUT [--volumes]",
		summary: "stop and remove a rendered lab's services",
		help: `
Runs docker compose down in the rendered lab directory OUT: the containers
and networks go; the named volumes (databases, checkpoints, lake
warehouses) stay unless --volumes is given. Records under OUT/records are
never touched.

Examples:
  labgen down out/orders
  labgen down out/orders --volumes`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			volumes := fs.Bool("volumes", false, "remove the lab's named volumes too (all its data)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("down takes one rendered lab directory")
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
