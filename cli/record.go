package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/labgen/labgen/runtime/record"
)

func init() {
	register(&command{
		name:    "record",
		args:    "show RECORD | diff A B",
		summary: "show a lab record, or compare two",
		help: `
record show RECORD prints a lab record as Markdown (the record.md a run
writes, rendered again from record.json). RECORD is a record's directory or
its record.json.

record diff A B compares two records of the same lab: which experiments and
steps ran and how each ended, the values captured, the expectations that
held or not, and the counts (rows, messages, checks). What always differs
between runs (times, durations, record and Flink job IDs, endpoints) is
ignored. Each difference is one line, "where: what: A → B".

Examples:
  labgen record show out/orders/records/20261129-100000-ab12
  labgen record diff out/orders/records/A out/orders/records/B`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			return func(_ context.Context, args []string) error {
				if len(args) == 0 {
					return usagef("record needs show or diff")
				}
				switch args[0] {
				case "show":
					if len(args) != 2 {
						return usagef("record show takes one record")
					}
					r, err := record.Read(args[1])
					if err != nil {
						return err
					}
					_, err = env.Stdout.Write(record.Markdown(r))
					return err
				case "diff":
					if len(args) != 3 {
						return usagef("record diff takes two records")
					}
					a, err := record.Read(args[1])
					if err != nil {
						return err
					}
					b, err := record.Read(args[2])
					if err != nil {
						return err
					}
					fmt.Fprint(env.Stdout, record.FormatDiff(record.Diff(a, b)))
					return nil
				}
				return usagef("record %s: want show or diff", args[0])
			}
		},
	})
}
