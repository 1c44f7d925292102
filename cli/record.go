package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/labgen/labgen/publish"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

func init() {
	register(&command{
		name:    "record",
		args:    "show RECORD|SET | diff A B | publish RECORD…|SET -o|--out DIR",
		summary: "show a lab record, compare two, or publish records as HTML",
		help: `
record show RECORD prints a lab record as Markdown (the record.md a run
writes, rendered again from record.json). RECORD is a record's directory or
its record.json; a set's directory (labgen run --repeat) prints the set:
its set.md, rendered again from set.json.

record diff A B compares two records of the same lab: which experiments and
steps ran and how each ended, their measures (the findings, by name), the
values captured, the expectations that
held or not, and the counts (rows, messages, checks). What always differs
between runs (times, durations, record and Flink job IDs, endpoints) and
captured identifiers (order IDs a step picked) are ignored. Each
difference is one line, "where: what: A → B". A measure the two records
define differently (its definition, a hash of what decides its value) is
refused, naming both definitions; one a record kept no definition of (an
older record) is compared by name, with a line saying so.

record publish RECORD… -o DIR writes one self-contained HTML page per
record into DIR (<id>.html): first the answers (per experiment its
question, each expectation's verdict with the value beside its bound and
its controls' verdict, its measures), then the controls table, what ran,
the runbook text, each step's SQL
and result tables (SQL NULL shown as NULL), captured values, expectations,
errors verbatim, the sampled quantities as SVG charts (never identifiers
nor a step kind's defaults; a constant series or one that changed once as
a line of text; no line across a time nothing sampled), the measured time to running after a
worker interruption, and with --controls the verdicts of every expectation
under its negative controls. With several records of one lab it adds
compare.html (also index.html): per experiment each expectation's verdict
and the measures and other measured figures side by side, the variables that differ, and the
changing quantities overlaid; never random IDs. Records that define a
measure differently are refused before any page is written. The pages load nothing from the network, print, and read on a
phone. A set's directory (labgen run --repeat), published alone, writes
the set's page, index.html (each measure's median, range and N, each
expectation's held count, every run with its status), each run's page
and compare.html.

Examples:
  labgen record show out/orders/records/20261129-100000-ab12
  labgen record diff out/orders/records/A out/orders/records/B
  labgen record publish out/orders/records/A -o site
  labgen record publish out/orders/records/A out/orders-fast/records/B -o site
  labgen record publish out/orders/records/SET -o site`,
		setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			out := fs.String("o", "", "record publish: the `DIR` to write the pages into")
			fs.StringVar(out, "out", "", "the same as -o `DIR`")
			return func(_ context.Context, args []string) error {
				if *out != "" && (len(args) == 0 || args[0] != "publish") {
					return usagef("-o (--out) belongs to record publish")
				}
				if len(args) == 0 {
					return usagef("record needs show, diff or publish")
				}
				switch args[0] {
				case "show":
					if len(args) != 2 {
						return usagef("record show takes one record")
					}
					if record.IsSet(args[1]) {
						s, err := record.ReadSet(args[1])
						if err != nil {
							return err
						}
						_, err = env.Stdout.Write(record.SetMarkdown(s))
						return err
					}
					r, err := readRecord(args[1])
					if err != nil {
						return err
					}
					_, err = env.Stdout.Write(record.Markdown(r))
					return err
				case "diff":
					if len(args) != 3 {
						return usagef("record diff takes two records")
					}
					a, err := readRecord(args[1])
					if err != nil {
						return err
					}
					b, err := readRecord(args[2])
					if err != nil {
						return err
					}
					ds, err := record.Diff(a, b)
					if err != nil {
						return err
					}
					fmt.Fprint(env.Stdout, record.FormatDiff(ds))
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
	for _, p := range paths {
		if !record.IsSet(p) {
			continue
		}
		if len(paths) > 1 {
			return usagef("%s is a set of runs (%s): a set is published alone, its page and each run's page (labgen record publish %s -o DIR)", p, record.SetJSONName, p)
		}
		s, err := record.ReadSet(p)
		if err != nil {
			return err
		}
		files, err := publish.WriteSet(out, s)
		for _, f := range files {
			fmt.Fprintln(env.Stdout, f)
		}
		return err
	}
	var rs []*record.Record
	for _, p := range paths {
		r, err := readRecord(p)
		if err != nil {
			return err
		}
		rs = append(rs, r)
		// A development build names no code a reader can get back; the
		// page says so in its head, and the publisher hears it now.
		if record.DevBuild(r.Labgen) {
			fmt.Fprintf(env.Stderr, "labgen record publish: warning: record %s was made by labgen %s\n", r.ID, r.LabgenText())
		}
	}
	files, err := publish.Write(out, rs)
	for _, f := range files {
		fmt.Fprintln(env.Stdout, f)
	}
	return err
}

// readRecord is record.Read for a path the user gave: one that holds no
// record is the command line's mistake (exit 2), and the message lists the
// records there are (of the lab directory named, or beside the path).
func readRecord(path string) (*record.Record, error) {
	if record.IsSet(path) {
		msg := fmt.Sprintf("%s is a set of runs (%s), not one record", path, record.SetJSONName)
		if s, err := record.ReadSet(path); err == nil {
			dir := path
			if filepath.Base(path) == record.SetJSONName {
				dir = filepath.Dir(path)
			}
			msg = fmt.Sprintf("%s is a set of %d runs (%s), not one record; its records:", path, len(s.Runs), record.SetJSONName)
			for _, r := range s.Runs {
				if r.Dir != "" {
					msg += "\n  " + filepath.Join(dir, r.Dir)
				}
			}
		}
		return nil, &usageError{msg}
	}
	r, err := record.Read(path)
	if err == nil {
		return r, nil
	}
	if _, serr := os.Stat(path); serr != nil && !errors.Is(serr, iofs.ErrNotExist) {
		return nil, err
	}
	msg := err.Error()
	if where, recs := recordsNear(path); len(recs) > 0 {
		const most = 10
		msg += fmt.Sprintf("\nThe records in %s (newest first):", where)
		for i, rp := range recs {
			if i == most {
				msg += fmt.Sprintf("\n  … and %d more", len(recs)-most)
				break
			}
			msg += "\n  " + rp
		}
	} else {
		msg += "\n(labgen run OUT writes records into OUT/records/; none was found at or around " + path + ")"
	}
	return nil, &usageError{msg}
}

// recordsNear lists record directories (those with a record.json), and
// sets of them (a set.json: labgen run --repeat), where
// the user probably meant: path itself when it is a lab directory or a
// records directory, else the directories above it, else out/*/records
// under the working directory. Newest first (a record's id starts with its
// time).
func recordsNear(path string) (where string, recs []string) {
	in := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case !e.IsDir():
			case exists(filepath.Join(p, record.JSONName)):
				out = append(out, p)
			case exists(filepath.Join(p, record.SetJSONName)):
				out = append(out, p+" (a set of runs, labgen run --repeat)")
			}
		}
		sort.Sort(sort.Reverse(sort.StringSlice(out)))
		return out
	}
	dir := filepath.Clean(path)
	if strings.HasSuffix(dir, record.JSONName) || strings.HasSuffix(dir, record.MarkdownName) {
		dir = filepath.Dir(dir)
	}
	for i := 0; i < 4 && dir != ""; i++ {
		for _, d := range []string{filepath.Join(dir, "records"), dir} {
			if rs := in(d); len(rs) > 0 {
				return d, rs
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	dirs, _ := filepath.Glob(filepath.Join("out", "*", "records"))
	for _, d := range dirs {
		recs = append(recs, in(d)...)
	}
	sort.Slice(recs, func(i, j int) bool { return filepath.Base(recs[i]) > filepath.Base(recs[j]) })
	return filepath.Join("out", "*", "records"), recs
}
