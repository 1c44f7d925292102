package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/labgen/labgen/publish"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "record",
		args:    "show RECORD | diff A B | publish RECORD… -o DIR",
		summary: "show a lab record, compare two, or publish records as HTML",
		help: `
record show RECORD prints a lab record as Markdown (the record.md a run
writes, rendered again from record.json). RECORD is a record's directory or
its record.json.

record diff A B compares two records of the same lab: which experiments and
steps ran and how each ended, the values captured, the expectations that
held or not, and the counts (rows, messages, checks). What always differs
between runs (times, durations, record and Flink job IDs, endpoints) and
captured identifiers (order IDs a step picked) are ignored. Each
difference is one line, "where: what: A → B".

record publish RECORD… -o DIR writes one self-contained HTML page per
record into DIR (<id>.html): what ran, the runbook text, each step's SQL
and result tables (SQL NULL shown as NULL), captured values, expectations,
errors verbatim, the sampled quantities as SVG charts (never identifiers;
a constant series as a line of text), the measured time to running after a
worker interruption, and with --controls the verdicts of every expectation
under its negative controls. With several records of one lab it adds
compare.html (also index.html): per experiment each expectation's verdict
and the measured figures side by side, the variables that differ, and the
changing quantities overlaid; never random IDs. The pages load nothing from the network, print, and read on a
phone.

Examples:
  labgen record show out/orders/records/20261129-100000-ab12
  labgen record diff out/orders/records/A out/orders/records/B
  labgen record publish out/orders/records/A -o site
  labgen record publish out/orders/records/A out/orders-fast/records/B -o site`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			out := fs.String("o", "", "record publish: the directory to write the pages into")
			return func(_ context.Context, args []string) error {
				if *out != "" && (len(args) == 0 || args[0] != "publish") {
					return usagef("-o belongs to record publish")
				}
				if len(args) == 0 {
					return usagef("record needs show, diff or publish")
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
				case "publish":
					return publishRecords(env, args[1:], *out)
				}
				return usagef("record %s: want show, diff or publish.%s", args[0], schemas.DidYouMean(args[0], []string{"show", "diff", "publish"}))
			}
		},
	})
}

// publishRecords is record publish.
func publishRecords(env *Env, paths []string, out string) error {
	if len(paths) == 0 || out == "" {
		return usagef("record publish takes one or more records and -o DIR")
	}
	var rs []*record.Record
	for _, p := range paths {
		r, err := record.Read(p)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	files, err := publish.Write(out, rs)
	for _, f := range files {
		fmt.Fprintln(env.Stdout, f)
	}
	return err
}
