package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// seedRecords are committed records of the seed lab (CI's make e2e, each
// with the experiments' measures), oldest first.
var seedRecords = []string{
	"20261202-084809-3673",
	"20261206-045211-4fc3",
	"20261206-064842-b9df",
	"20261206-074946-6b7e",
}

// seedRuns reads committed seed-lab records as runs of one set. They are
// runs of successive revisions of the lab, each with its own lab.json
// hash; a set is repeats of one rendered lab, so they take the first's.
func seedRuns(t *testing.T, ids ...string) []*Record {
	t.Helper()
	var out []*Record
	for _, id := range ids {
		r, err := Read(filepath.Join("../../docs/records/orders", id))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	for _, r := range out[1:] {
		r.Lab.Hash = out[0].Lab.Hash
	}
	return out
}

// squeeze is Markdown with the padding of its table cells left out.
func squeeze(md []byte) string { return regexp.MustCompile(` {2,}`).ReplaceAllString(string(md), " ") }

func measure(t *testing.T, s *Set, key string) SetMeasure {
	t.Helper()
	for _, m := range s.Measures {
		if m.Key == key {
			return m
		}
	}
	t.Fatalf("the set has no measure %s", key)
	return SetMeasure{}
}

func expectation(t *testing.T, s *Set, exp, step string, index int) SetExpectation {
	t.Helper()
	for _, x := range s.Expectations {
		if x.Experiment == exp && x.Step == step && x.Index == index {
			return x
		}
	}
	t.Fatalf("the set has no expectation %s/%s/%d", exp, step, index)
	return SetExpectation{}
}

func stats(t *testing.T, m SetMeasure, n int, median, min, max float64) {
	t.Helper()
	if m.N != n || m.Median == nil || *m.Median != median || *m.Min != min || *m.Max != max {
		t.Errorf("%s: %s, want N %d, median %v, %v–%v", m.Key, m.Text(m.Unit), n, median, min, max)
	}
}

// The median of an odd number of runs is the middle one, of an even
// number the mean of the middle two; the range is the least and the
// greatest. On the seed lab's serving lag as CI's runs measured it:
// 3.02, 3.025, 7.048 and 8.103 s.
func TestSetStatistics(t *testing.T) {
	odd, err := SetOf("odd", seedRuns(t, seedRecords[1:]...), false)
	if err != nil {
		t.Fatal(err)
	}
	stats(t, measure(t, odd, "baseline/serving_lag"), 3, 7.048, 3.025, 8.103)
	even, err := SetOf("even", seedRuns(t, seedRecords...), false)
	if err != nil {
		t.Fatal(err)
	}
	m := measure(t, even, "baseline/serving_lag")
	stats(t, m, 4, (3.025+7.048)/2, 3.02, 8.103)
	if got := m.Text(m.Unit); got != "5.04 s (3.02–8.10 s, 4 runs)" {
		t.Errorf("text %q", got)
	}
	if m.Title == "" || m.Unit != "s" || m.Number != 1 || len(m.Values) != 4 || *m.Values[3] != 8.103 {
		t.Errorf("the measure's head or values: %+v", m)
	}
	if even.Measures[0].Key != "baseline/serving_lag" || even.Measures[1].Key != "delayed_payment/payment_to_clickhouse" {
		t.Errorf("measures not in the records' order: %s, %s", even.Measures[0].Key, even.Measures[1].Key)
	}
	if len(even.Runs) != 4 || even.Runs[3].ID != seedRecords[3] || even.Runs[3].Dir != seedRecords[3] || even.Status != RunFinished {
		t.Errorf("runs: %+v", even.Runs)
	}
	for _, r := range even.Runs {
		if r.Status != SetRunOK || r.Why != "" {
			t.Errorf("run %d: %s %s", r.N, r.Status, r.Why)
		}
	}
	x := expectation(t, even, "delayed_payment", "wait_for_join", 0)
	if x.Count() != "4/4" || len(x.NotHeld)+len(x.NotEvaluated) != 0 {
		t.Errorf("wait_for_join: %+v", x)
	}
	if got := Summarize(nil); got.N != 0 || got.Median != nil || got.Text("s") != "not measured" {
		t.Errorf("no values: %+v", got)
	}
	if got := Summarize([]float64{2}); *got.Median != 2 || got.Text("s") != "2.00 s" {
		t.Errorf("one value: %s", got.Text("s"))
	}
}

// A measure one run lacks stands over the runs that measured it, and the
// set says which run lacks it and why: the record of 2 December (before
// experiment 07 measured the join's state) beside three that measure it.
func TestSetMeasureNotEverywhere(t *testing.T) {
	s, err := SetOf("set", seedRuns(t, "20261202-061115-7ebd", seedRecords[1], seedRecords[2], seedRecords[3]), false)
	if err != nil {
		t.Fatal(err)
	}
	m := measure(t, s, "load/join_state")
	if m.N != 3 || m.Values[0] != nil || len(m.NotMeasured) != 1 || m.NotMeasured[0].Run != 1 || m.NotMeasured[0].Why != "the experiment declared no such measure in this run" {
		t.Errorf("join_state: N %d, not measured %+v", m.N, m.NotMeasured)
	}
	if !strings.Contains(squeeze(SetMarkdown(s)), "| 07 | "+m.Title+" | 0.886 MiB | 0.880–1.01 MiB | 3 of 4 | –, 0.880, 0.886, 1.01 |") {
		t.Errorf("set.md's row of join_state:\n%s", SetMarkdown(s))
	}
}

// A failed run is kept: the set shows it failed and why, counts its
// expectations (one not held: 3/4, in run 2) and its measures; a run
// that left no record is kept too, as not evaluated. With --strict an
// expectation that did not hold fails the run; without, it does not.
func TestSetKeepsFailedRuns(t *testing.T) {
	recs := seedRuns(t, seedRecords[:3]...)
	failed := recs[1]
	e := failed.Experiment("delayed_payment")
	var wait *Step
	for _, st := range e.Steps {
		if st.Name == "wait_for_join" {
			wait = st
		}
	}
	wait.Status, wait.Error = StatusError, "dial tcp 127.0.0.1:8123: connection refused"
	wait.Expectations[0].Held = false
	s := NewSet("s", recs[0].Lab, "test", "labgen run out/orders --repeat 4", 4, false, recs[0].Started)
	for _, r := range recs {
		if err := s.Add(r, r.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(nil, "", errors.New("labgen up: the stack did not come up")); err != nil {
		t.Fatal(err)
	}
	if s.Runs[1].Status != SetRunFailed || !strings.HasPrefix(s.Runs[1].Why, "1 step(s) and 0 job submission(s) failed") {
		t.Errorf("run 2: %s: %s", s.Runs[1].Status, s.Runs[1].Why)
	}
	if s.Runs[3].Status != SetRunFailed || s.Runs[3].Why != "labgen up: the stack did not come up" || s.Runs[3].Dir != "" {
		t.Errorf("run 4: %+v", s.Runs[3])
	}
	x := expectation(t, s, "delayed_payment", "wait_for_join", 0)
	if x.Count() != "2/4" || !reflect.DeepEqual(x.NotHeld, []int{2}) || !reflect.DeepEqual(x.NotEvaluated, []int{4}) {
		t.Errorf("wait_for_join: %s, not held %v, not evaluated %v", x.Count(), x.NotHeld, x.NotEvaluated)
	}
	m := measure(t, s, "baseline/serving_lag")
	stats(t, m, 3, 3.025, 3.02, 7.048)
	if len(m.NotMeasured) != 1 || m.NotMeasured[0] != (SetMiss{Run: 4, Why: "the run left no record"}) {
		t.Errorf("not measured: %+v", m.NotMeasured)
	}
	if got := s.Summary(); got != "4 run(s) of 4: 2 ok, 2 failed (run 2, 4)." {
		t.Errorf("summary %q", got)
	}
	md := squeeze(SetMarkdown(s))
	for _, want := range []string{
		"| 03 | `wait_for_join` | " + x.Message + " | 2/4 | not held in run 2; not evaluated in run 4 |",
		"| 2 | [" + seedRecords[1] + "](" + seedRecords[1] + "/record.md) |",
		"failed: 1 step(s) and 0 job submission(s) failed; their errors are in the record |",
		"| 4 | (no record) ",
		"- run 4, 01 serving_lag, 03 payment_to_clickhouse, 07 orders_per_s,",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("set.md lacks %q:\n%s", want, md)
		}
	}

	// Not held without a failed step: a failure under --strict only.
	recs = seedRuns(t, seedRecords[:2]...)
	recs[1].Experiment("delayed_payment").Steps[0].Expectations = []Expectation{{Message: "m", Condition: "false"}}
	for _, strict := range []bool{false, true} {
		s, err := SetOf("s", recs, strict)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Runs[1].Status, map[bool]string{false: SetRunOK, true: SetRunFailed}[strict]; got != want {
			t.Errorf("strict %v: run 2 %s (%s), want %s", strict, got, s.Runs[1].Why, want)
		}
	}
}

// A set is runs of one rendered lab: a record of another lab.json is
// refused; an interrupted run is kept as interrupted.
func TestSetOneLab(t *testing.T) {
	var recs []*Record
	for _, id := range seedRecords[:2] {
		r, err := Read(filepath.Join("../../docs/records/orders", id))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if _, err := SetOf("s", recs, false); err == nil || !strings.Contains(err.Error(), "a set is runs of one rendered lab") {
		t.Errorf("two lab.json hashes: %v", err)
	}
	recs = seedRuns(t, seedRecords[:2]...)
	recs[1].Status = RunInterrupted
	s, err := SetOf("s", recs, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs[1].Status != SetRunInterrupted {
		t.Errorf("run 2: %+v", s.Runs[1])
	}
}

// set.json round trip: what WriteSet writes, ReadSet reads back, with
// the records its runs name; a set of another format is refused.
func TestSetRoundTrip(t *testing.T) {
	recs := seedRuns(t, seedRecords[1:]...)
	dir := t.TempDir()
	s := NewSet("20261207-100000-abcd", recs[0].Lab, "v1", "labgen run out/orders --repeat 4", 4, true, recs[0].Started)
	for _, r := range recs {
		if err := Write(filepath.Join(dir, r.ID), r, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(r, r.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.Finish(*recs[2].Ended, true)
	if err := WriteSet(dir, s); err != nil {
		t.Fatal(err)
	}
	if !IsSet(dir) || !IsSet(filepath.Join(dir, SetJSONName)) || IsSet(filepath.Join(dir, recs[0].ID)) {
		t.Error("IsSet")
	}
	got, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := MarshalSet(s)
	b, _ := MarshalSet(got)
	if !bytes.Equal(a, b) {
		t.Errorf("read back differs:\n%s\n---\n%s", a, b)
	}
	if len(got.Records()) != 3 || got.Records()[2].ID != recs[2].ID {
		t.Errorf("records read back: %d", len(got.Records()))
	}
	md, err := os.ReadFile(filepath.Join(dir, SetMarkdownName))
	if err != nil || !bytes.Equal(md, SetMarkdown(s)) || !strings.Contains(string(md), "interrupted before every run ran") || !strings.Contains(string(md), "1 run(s) of the 4 asked for did not run") {
		t.Errorf("set.md: %v\n%s", err, md)
	}
	for _, want := range []string{`"format": 1`, `"strict": true`, `"repeats": 4`, `"status": "interrupted"`, `"median": 7.048`, `"n": 3`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("set.json lacks %s", want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, SetJSONName), bytes.Replace(a, []byte(`"format": 1`), []byte(`"format": 2`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSet(dir); err == nil || !strings.Contains(err.Error(), "format 2; this labgen reads format 1") {
		t.Errorf("format 2: %v", err)
	}
}
