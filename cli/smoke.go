package cli

import (
	"context"
	"flag"

	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "smoke",
		args:    "OUT [--no-up] " + endpointArgs,
		summary: "check that every part of a rendered lab runs and data flows",
		help: `
Runs the lab's smoke checks as a one-step run with its own record
(OUT/records/<id>/): the services answer (MySQL, ClickHouse, Kafka, the
Flink JobManager with a TaskManager), each streaming job and Fluss's
tiering job is RUNNING, the producer's table grows, each store a job writes
holds rows, and each lake table has files (Paimon snapshots, Iceberg data
files; under OUT/.native/warehouse when a native stack runs). The checks
are the rendered ./stream-lab smoke's list, computed once from the lab and
made from outside the containers; the endpoint flags are those of labgen
run. As in the script, a check that fails is tried again every 5 seconds
for up to 2 minutes before it counts as failed (data reaches ClickHouse a
while after the lab is up).

The lab is brought up first unless --no-up is given (with a native stack
running, that stack); streaming jobs are not submitted (smoke observes, it
does not repair). Exit code 0 when every check passes, 3 otherwise.

Examples:
  labgen smoke out/orders
  labgen smoke out/orders --no-up --flink http://10.0.0.5:8081`,
		setup: labActionSetup("smoke", "Smoke checks"),
	})
}

// labActionSetup declares the flags of a command that runs the lab action
// (smoke, batch) as a one-step run, and returns its run function.
func labActionSetup(action, title string) func(*flag.FlagSet, *Env) func(context.Context, []string) error {
	return func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
		noUp := fs.Bool("no-up", false, "do not bring the lab up first (docker compose up, or up --native)")
		ep := addEndpointFlags(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one rendered lab directory", action)
			}
			return runLab(ctx, env, args[0], ep, runConfig{noUp: *noUp, only: labStep(action, title)}, action)
		}
	}
}

// labStep is a one-step experiment of a lab action.
func labStep(action, title string) *schemas.Experiment {
	return &schemas.Experiment{Name: action, Number: 0, Title: title,
		Steps: []*schemas.Step{{Name: action, Kind: schemas.StepLab, Title: title, Lab: &schemas.LabStep{Action: action}, OnFailure: "continue"}}}
}
