package publish

import (
	"errors"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

// seedSet is a set of four committed runs of the seed lab (CI's make
// e2e, each with the experiments' measures) and a fifth that left no
// record; in the second, a step failed and its expectation did not hold.
// The committed runs are of successive revisions of the lab: a set is
// runs of one rendered lab, so they take the first's lab.json hash.
func seedSet(t *testing.T) *record.Set {
	t.Helper()
	var recs []*record.Record
	for _, id := range []string{"20261202-084809-3673", "20261206-045211-4fc3", "20261206-064842-b9df", "20261206-074946-6b7e"} {
		r, err := record.Read(filepath.Join("../docs/records/orders", id))
		if err != nil {
			t.Fatal(err)
		}
		r.Lab.Hash = "sha256:d1ea6bb5c95f3f06f7176f10c7159f646c81f30557713ed864ae4b6bddc9a518"
		recs = append(recs, r)
	}
	for _, s := range recs[1].Experiment("delayed_payment").Steps {
		if s.Name == "wait_for_join" {
			s.Status, s.Error = record.StatusError, "dial tcp 127.0.0.1:8123: connection refused"
			s.Expectations[0].Held = false
		}
	}
	s := record.NewSet("20261207-100000-abcd", recs[0].Lab, "v-test", "labgen run out/orders --repeat 5", 5, false, recs[0].Started)
	for _, r := range recs {
		if err := s.Add(r, r.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(nil, "", errors.New("labgen up: the stack did not come up")); err != nil {
		t.Fatal(err)
	}
	s.Finish(*recs[3].Ended, false)
	return s
}

// The set's page opens with one row per measure (median, range, N, each
// run's value) and one per expectation (held in how many runs, which
// not), then every run with its status, linked to its own page; a run
// that failed or left no record is there too.
func TestSetPage(t *testing.T) {
	s := seedSet(t)
	pages := []string{"a.html", "b.html", "c.html", "d.html", ""}
	b, err := SetPage(s, pages, "compare.html")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "set.html", b)
	// The text, each tag a |.
	page := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(string(b), "|"))
	page = regexp.MustCompile(`\|+`).ReplaceAllString(page, "|")
	for _, want := range []string{
		"|Set of 5 runs · |orders| · |20261207-100000-abcd|",
		"5 run(s) of 5: 3 ok, 2 failed (run 2, 5).",
		// serving_lag: 3.02, 3.025, 7.048, 8.103 → the mean of the middle two.
		"|01|ClickHouse serves every order MySQL held, after |serving_lag|5.04 s|3.02–8.10 s|4 of 5|3.02, 3.02, 7.05, 8.10, –|",
		"|run 5, |01 serving_lag|, |03 payment_to_clickhouse|, ",
		"|07 cpu_producer|: the run left no record|",
		"|03|Measured: within 30 s of its payment, the joined row carries the payment's status (PAID or FAILED).|wait_for_join|3/5|not held in run 2; not evaluated in run 5|",
		"|2|20261206-045211-4fc3|2026-12-06 04:52:11Z|14m20s|failed| 1 step(s) and 0 job submission(s) failed; their errors are in the record|",
		"|5|(no record)|failed| labgen up: the stack did not come up|",
		"Every run side by side",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the set's page lacks %q", want)
		}
	}
	for _, want := range []string{`href="b.html"`, `href="compare.html"`, `<td class="not-held">3/5</td>`, `<td class="not-checked">4/5</td>`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the set's page lacks %s", want)
		}
	}
	if strings.Index(page, "Measures") > strings.Index(page, "Expectations") || strings.Index(page, "Expectations") > strings.Index(page, "|Runs|") {
		t.Error("the page does not open with the measures, then the expectations, then the runs")
	}
}

// WriteSet publishes the set's page as index.html, each run's page and
// the comparison; a run without a record has no page.
func TestWriteSet(t *testing.T) {
	s := seedSet(t)
	dir := t.TempDir()
	files, err := WriteSet(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "20261202-084809-3673.html 20261206-045211-4fc3.html 20261206-064842-b9df.html 20261206-074946-6b7e.html compare.html index.html"
	if strings.Join(names, " ") != want {
		t.Errorf("wrote %v, want %s", names, want)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `<a href="20261206-045211-4fc3.html">20261206-045211-4fc3</a>`) {
		t.Error("index.html does not link run 2's page")
	}
}
