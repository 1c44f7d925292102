package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

func init() {
	register(&command{
		name:    "validate",
		args:    "LAB_DIR [-var NAME=VALUE ...] [-var-file FILE ...]",
		summary: "check a lab: syntax, types, references, read-only presets",
		help: `
Loads every .hcl file of LAB_DIR and checks the lab the way render and run
will see it: attribute types, column types, value distributions, references
between blocks (tables, jobs, presets, captured values of earlier steps),
read-only presets, and which experiments the stack can run. Nothing is
written and nothing is started.

Errors and warnings are printed with FILE:LINE:COL and a source snippet.
Experiments and jobs that need a component the stack leaves out are
reported as warnings and marked unavailable.

Variables take their default, then LABGEN_VAR_<name> from the environment,
then -var and -var-file in command-line order (later wins).

Examples:
  labgen validate labs/orders
  labgen validate labs/orders -var order_rate=50 -var payment_delay=10s
  labgen validate labs/orders -var lakes=false`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			return func(_ context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("validate takes one lab directory")
				}
				lab, diags, err := loadLab(env, args[0], *vars)
				if err != nil {
					return err
				}
				warnings := 0
				for _, d := range diags {
					if d.Severity == hcl.DiagWarning {
						warnings++
					}
				}
				unavailable := 0
				for _, e := range lab.Experiments {
					if e.Unavailable != "" {
						unavailable++
					}
				}
				fmt.Fprintf(env.Stdout, "The lab %q is valid: %d tables, %d jobs, %d presets, %d experiments",
					lab.Name, len(lab.Tables), len(lab.Jobs), len(lab.Presets), len(lab.Experiments))
				if unavailable > 0 {
					fmt.Fprintf(env.Stdout, " (%d unavailable in this stack)", unavailable)
				}
				if warnings > 0 {
					fmt.Fprintf(env.Stdout, ", %d warning(s)", warnings)
				}
				fmt.Fprintln(env.Stdout, ".")
				return nil
			}
		},
	})
}
