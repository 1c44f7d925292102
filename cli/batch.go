package cli

func init() {
	register(&command{
		name:    "batch",
		args:    "OUT [--no-up] " + endpointArgs,
		summary: "run a rendered lab's bounded Flink jobs now",
		help: `
Runs each available bounded (batch) job of the lab through the Flink SQL
gateway, side by side as far as the TaskManagers have free slots (the
jobs are independent reads), and waits until each has finished, as a
one-step run with its own record (OUT/records/<id>/): the SQL as sent
(passwords from .env filled in when sending, never in the record), each
job's ID, final state and duration, and Flink's error verbatim when one
fails. The jobs are those of the rendered ./stream-lab batch, and as
there, when a job's result is served by ClickHouse the step waits (up to 2
minutes) until the result has arrived there, so what is read next is the
new summary.

The lab is brought up first unless --no-up is given. Exit code 0 when every
job finished, 3 otherwise.

Examples:
  labgen batch out/orders
  labgen batch out/orders --no-up --gateway http://127.0.0.1:8083`,
		setup: labActionSetup("batch", "Bounded jobs"),
	})
}
