package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "validate",
		args:    "LAB_DIR [-var NAME=VALUE ...] [-var-file FILE ...] [--engines [--out OUT] " + checkEndpointArgs + "]",
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

With --engines, the real engines check what the lab will run as well:
Flink's planner, through a SQL gateway, runs each job's SET and CREATE
TEMPORARY statements in a fresh session and EXPLAINs its INSERT or
statement set; MySQL, PostgreSQL and ClickHouse EXPLAIN every preset and
every query step whose SQL needs nothing from the run; the MySQL and
PostgreSQL DDL labgen renders is tried in a scratch database, dropped
afterwards, when the user may create one (the lab's reader may not: give
--mysql or --postgres a user who may). What an engine rejects is an error
at the lab's own line (jobs/*.sql, presets/*.sql, the .hcl heredoc, the
table's block for its DDL). Nothing of the lab's data changes: Flink's
objects are temporary, INSERTs are only explained, an Iceberg catalog gets
a scratch warehouse, and Fluss tables are only read where the lab's Fluss
has them. An engine that does not answer, or a lake catalog whose server
is down, is listed as not checked, with why. The engines are the lab's
(127.0.0.1 at its ports; a native stack that runs for --out OUT, with its
addresses), or the ones the flags name: --gateway URL, --mysql,
--postgres, --clickhouse as for labgen run.

Variables take their default, then LABGEN_VAR_<name> from the environment,
then -var and -var-file in command-line order (later wins).

Examples:
  labgen validate labs/orders
  labgen validate labs/orders -var order_rate=50 -var payment_delay=10s
  labgen validate labs/orders -var lakes=false
  labgen validate labs/orders --engines --out out/orders
  labgen validate labs/orders --engines --gateway http://10.0.0.5:8083`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			vars := addVarFlags(fs)
			engines := fs.Bool("engines", false, "also ask the real engines (Flink's planner, the databases) to check what the lab runs")
			out := fs.String("out", "", "with --engines: the rendered lab `OUT` whose running stack (and .env) to check against")
			ep := addCheckEndpointFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("validate takes one lab directory")
				}
				// validate also lints: expectations that cannot fail are
				// warned about here, not at every render or run.
				lab, diags, parser, err := loadLabOptions(ctx, env, args[0], schemas.Options{Vars: *vars, Environ: env.Environ, Lint: true})
				if err != nil {
					return err
				}
				if !*engines && (*out != "" || *ep != (endpointFlags{})) {
					return usagef("--out and the endpoint flags go with --engines")
				}
				warnings := 0
				for _, d := range diags {
					if d.Severity == hcl.DiagWarning {
						warnings++
					}
				}
				fmt.Fprintln(env.Stdout, ValidLine(lab, warnings))
				if !*engines {
					return nil
				}
				dir, done, err := renderedForCheck(lab, *out)
				if err != nil {
					return err
				}
				defer done()
				return checkEngines(ctx, env, env.Stdout, lab, parser.Files(), parser.SQLSourceAt, dir, ep)
			}
		},
	})
}

// ValidLine is what validate prints of a lab without errors.
func ValidLine(lab *schemas.Lab, warnings int) string {
	unavailable := 0
	for _, e := range lab.Experiments {
		if e.Unavailable != "" {
			unavailable++
		}
	}
	s := fmt.Sprintf("The lab %q is valid: %s, %s, %s, %s", lab.Name,
		plural(len(lab.Tables), "table"), plural(len(lab.Jobs), "job"), plural(len(lab.Presets), "preset"), plural(len(lab.Experiments), "experiment"))
	if unavailable > 0 {
		s += fmt.Sprintf(" (%d unavailable in this stack)", unavailable)
	}
	if warnings > 0 {
		s += ", " + plural(warnings, "warning")
	}
	return s + "."
}

// plural counts things: "1 job", "3 jobs".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
