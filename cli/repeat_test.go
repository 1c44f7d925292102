package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/labdir/labdirtest"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// measuredLab is the notes lab with a measure (1.5 s) and an expectation
// in experiment 2 (on a note, which has no result to check: not held,
// which fails a run under --strict only) and, when failing is set, a
// query of a MySQL where nothing listens in experiment 1: a step that
// fails every run.
func measuredLab(t *testing.T, failing bool) string {
	l := notesLab()
	two := l.Experiments[1]
	two.Measures = []*schemas.Measure{{Name: "lag", Title: "The lag", Unit: "s", Value: schemas.Expr{Source: "1.5", Text: "1.5"}}}
	two.Steps[0].Expects = []*schemas.Expect{{Condition: schemas.Expr{Source: "true", Text: "true"}, Message: "A note has no result to check."}}
	files := map[string]string{}
	if failing {
		_, port, _ := strings.Cut(closedPort(t), ":")
		l.Stack.MySQL = &schemas.MySQL{Database: "shop", Port: atoi(t, port)}
		l.Experiments[0].Steps = append(l.Experiments[0].Steps, &schemas.Step{Name: "q", Kind: schemas.StepQuery,
			Query: &schemas.QueryStep{Engine: "mysql", SQL: schemas.Expr{Text: "SELECT 1"}}})
		files[".env"] = "MYSQL_READER_USER=reader\nMYSQL_READER_PASSWORD=pw\n"
	}
	return labdirtest.Rendered(t, l, files)
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// theSet is the one set a run --repeat wrote into dir's records.
func theSet(t *testing.T, dir string) (string, *record.Set) {
	t.Helper()
	sets, _ := filepath.Glob(filepath.Join(dir, "records", "*", record.SetJSONName))
	if len(sets) != 1 {
		t.Fatalf("sets: %v", sets)
	}
	s, err := record.ReadSet(filepath.Dir(sets[0]))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(sets[0]), s
}

// labgen run --repeat 3: three runs, each a record of its own in the
// set's directory (<set>-1 … -3), and the set beside them; record show
// prints the set, record publish makes its page and each run's.
func TestRunRepeat(t *testing.T) {
	dir := measuredLab(t, false)
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--repeat", "3")
	if code != ExitOK {
		t.Fatalf("run --repeat 3: %d\n%s\n%s", code, stdout, stderr)
	}
	setDir, s := theSet(t, dir)
	if s.Status != record.RunFinished || len(s.Runs) != 3 || s.Repeats != 3 || s.Lab.Name != "notes" || !strings.HasPrefix(s.Lab.Hash, "sha256:") || s.Labgen != Version {
		t.Fatalf("set: %+v", s)
	}
	for i, r := range s.Runs {
		want := s.ID + "-" + string(rune('1'+i))
		if r.ID != want || r.Dir != want || r.Status != record.SetRunOK || s.Records()[i] == nil {
			t.Errorf("run %d: %+v", i+1, r)
		}
	}
	m := s.Measures[0]
	if m.Key != "two/lag" || m.N != 3 || *m.Median != 1.5 {
		t.Errorf("measure: %+v", m)
	}
	if x := s.Expectations[0]; x.Count() != "0/3" || len(x.NotHeld) != 3 {
		t.Errorf("expectation: %+v", x)
	}
	for _, want := range []string{"Run 1 of 3: ok. 2 steps: 2 ok, 0 failed", "Run 3 of 3: ", "3 run(s) of 3: 3 ok.", "  02 lag: 1.50 s (1.50–1.50 s, 3 runs)", filepath.Join("DIR", "records", s.ID, "set.md")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "== run 2 of 3") || !strings.Contains(stderr, "Set: "+filepath.Join("DIR", "records", s.ID, "set.md")) {
		t.Errorf("stderr:\n%s", stderr)
	}

	code, stdout, _ = run(t, dir, nil, "record", "show", setDir)
	if code != ExitOK || !strings.HasPrefix(stdout, "# Set of runs: Notes") || !strings.Contains(stdout, "| 0/3  | not held in run 1, 2, 3 |") {
		t.Fatalf("record show SET: %d\n%s", code, stdout)
	}
	site := filepath.Join(t.TempDir(), "site")
	code, stdout, stderr = run(t, dir, nil, "record", "publish", setDir, "-o", site)
	if code != ExitOK {
		t.Fatalf("record publish SET: %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"index.html", "compare.html", s.ID + "-1.html", s.ID + "-3.html"} {
		if !exists(filepath.Join(site, f)) {
			t.Errorf("publish wrote no %s:\n%s", f, stdout)
		}
	}
	index, _ := os.ReadFile(filepath.Join(site, "index.html"))
	if !strings.Contains(string(index), `href="`+s.ID+`-2.html"`) {
		t.Errorf("the set's page does not link run 2's page")
	}
	code, _, stderr = run(t, dir, nil, "record", "publish", setDir, filepath.Join(setDir, s.ID+"-1"), "-o", site)
	if code != ExitUsage || !strings.Contains(stderr, "a set is published alone") {
		t.Errorf("a set beside a record: %d %s", code, stderr)
	}
	code, _, stderr = run(t, dir, nil, "record", "diff", setDir, filepath.Join(setDir, s.ID+"-1"))
	if code != ExitUsage || !strings.Contains(stderr, "is a set of 3 runs") || !strings.Contains(stderr, s.ID+"-1") {
		t.Errorf("record diff of a set: %d %s", code, stderr)
	}
}

// Under --strict an expectation that did not hold fails its run, as it
// fails a single run: every run still runs, the set is written, and then
// the exit code is 3.
func TestRunRepeatStrict(t *testing.T) {
	dir := measuredLab(t, false)
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--repeat", "2", "--strict")
	if code != ExitRunFailed {
		t.Fatalf("run --repeat 2 --strict: %d\n%s\n%s", code, stdout, stderr)
	}
	_, s := theSet(t, dir)
	if !s.Strict || s.Status != record.RunFinished || len(s.Runs) != 2 || !strings.HasSuffix(s.Command, " --repeat 2 --strict") {
		t.Fatalf("set: %+v", s)
	}
	for _, r := range s.Runs {
		if r.Status != record.SetRunFailed || r.Why != "1 expectation(s) did not hold (--strict); the record says which" {
			t.Errorf("run %d: %+v", r.N, r)
		}
	}
	if !strings.Contains(stdout, "2 run(s) of 2: 0 ok, 2 failed (run 1, 2) under --strict.") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// A run that fails is kept, shown failed, and the set goes on to the
// next; the exit code (3) comes after every run ran and the set is
// written.
func TestRunRepeatKeepsFailedRuns(t *testing.T) {
	dir := measuredLab(t, true)
	code, stdout, stderr := run(t, dir, nil, "run", dir, "--no-up", "--repeat", "2")
	if code != ExitRunFailed {
		t.Fatalf("run --repeat 2: %d\n%s\n%s", code, stdout, stderr)
	}
	_, s := theSet(t, dir)
	if s.Status != record.RunFinished || len(s.Runs) != 2 {
		t.Fatalf("set: %s, %d runs", s.Status, len(s.Runs))
	}
	for _, r := range s.Runs {
		if r.Status != record.SetRunFailed || !strings.HasPrefix(r.Why, "1 step(s) and 0 job submission(s) failed") || !exists(filepath.Join(dir, "records", s.ID, r.Dir, record.JSONName)) {
			t.Errorf("run %d: %+v", r.N, r)
		}
	}
	if m := s.Measures[0]; m.N != 2 {
		t.Errorf("the failed runs' measure: N %d", m.N)
	}
	if !strings.Contains(stdout, "2 run(s) of 2: 0 ok, 2 failed (run 1, 2).") || !strings.Contains(stderr, "2 of 2 run(s) failed; every run is in the set:\n  run 1: 1 step(s)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// --repeat needs at least one run and does not go with --resume; both
// are usage mistakes, found before anything runs.
func TestRunRepeatFlags(t *testing.T) {
	dir := measuredLab(t, false)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeat", "0"}, "--repeat 0: a set needs at least one run"},
		{[]string{"--repeat", "-2"}, "--repeat -2: a set needs at least one run"},
		{[]string{"--repeat", "2", "--resume", filepath.Join(dir, "records", "x")}, "--repeat starts a set of new runs and --resume continues one record"},
		{[]string{"--repeat", "two"}, "invalid value"},
	} {
		code, _, stderr := run(t, dir, nil, append([]string{"run", dir, "--no-up"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %d %s", c.args, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "records")); len(entries) != 0 {
		t.Errorf("a refused run wrote %d record(s)", len(entries))
	}
	// An unknown experiment is refused before the set begins.
	code, _, stderr := run(t, dir, nil, "run", dir, "--no-up", "--repeat", "2", "--experiment", "9")
	if code != ExitUsage || !strings.Contains(stderr, `no experiment "9"`) {
		t.Errorf("unknown experiment: %d %s", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "records")); len(entries) != 0 {
		t.Errorf("a refused set left %d entries in records/", len(entries))
	}
}
