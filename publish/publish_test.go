package publish

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labgen/labgen/runtime/record"
)

var update = flag.Bool("update", false, "rewrite the golden pages")

// fixtures: sampled is the record runtime/runner's TestSampledRecovery
// writes (replayed Flink 1.20.1 answers; go test ./runtime/runner -run
// TestSampledRecovery -update-sampled); orders is a real record of the
// seed lab run on the native stack.
func load(t *testing.T, name string) *record.Record {
	t.Helper()
	r, err := record.Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// variant is the sampled record as if run again with another variable and
// slower counters: a second record of the same lab, for the comparison.
func variant(t *testing.T) *record.Record {
	r := load(t, "sampled")
	r.ID += "-b"
	r.Variables = append(r.Variables, record.Variable{Name: "taskmanagers", Value: []byte("2"), Source: "-var"})
	for _, e := range r.Experiments {
		for _, s := range e.Steps {
			for i := range s.Samples {
				for k, v := range s.Samples[i].Values {
					if k == "checkpoints" {
						s.Samples[i].Values[k] = []byte(strings.TrimSpace(string(v)) + "0")
					}
				}
			}
		}
	}
	return r
}

// compared is the seed lab's record with a compare step in experiment 03:
// 100 payment delays in ten bins of 20 s beside exponential(45, { max =
// 300 }) (the declared counts as the runner computes them: the last bin
// takes the tail).
func compared(t *testing.T) *record.Record {
	r := load(t, "orders")
	e := r.Experiment("delayed_payment")
	if e == nil {
		t.Fatal("no experiment delayed_payment in the fixture")
	}
	observed := []int{33, 22, 15, 10, 7, 5, 3, 2, 2, 1}
	c := &record.Compare{Of: "producer.shop.follow.payment.delay", Declared: "exponential(45, { max = 300 })", Column: "delay_s", Unit: "s"}
	for i, n := range observed {
		lo, hi := float64(20*i), float64(20*i+20)
		to := math.Exp(-hi / 45)
		if i == len(observed)-1 {
			to = 0
		}
		c.Bins = append(c.Bins, record.Bin{Lo: lo, Hi: hi, Observed: n, Declared: 100 * (math.Exp(-lo/45) - to)})
		for k := 0; k < n; k++ {
			c.Values = append(c.Values, lo+float64(k))
		}
	}
	last := e.Steps[len(e.Steps)-1]
	e.Steps = append(e.Steps, &record.Step{Name: "payment_delays", Kind: "query", Title: "The declared payment delay beside the delays MySQL shows",
		Started: last.Started, DurationMS: 12, Status: record.StatusOK, Compare: c,
		Ran: &record.Ran{What: "mysql", SQL: "SELECT p.payment_id, TIMESTAMPDIFF(MICROSECOND, o.created_at, p.updated_at) / 1000000 AS delay_s FROM payments p JOIN orders o ON o.order_id = p.order_id ORDER BY p.payment_id DESC LIMIT 400"}})
	return r
}

// volatile are the parts of a page that come from where the fixture ran
// (the replay server's ports), masked in the goldens.
var volatile = regexp.MustCompile(`127\.0\.0\.1:\d+`)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = volatile.ReplaceAll(got, []byte("127.0.0.1:PORT"))
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./publish -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from the golden at line %d:\nwant: %.300s\ngot:  %.300s\n(go test ./publish -update rewrites it; review the diff)", name, i+1, w, g)
			}
		}
	}
}

func TestGoldenPages(t *testing.T) {
	for _, name := range []string{"sampled", "orders"} {
		b, err := Page(load(t, name))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name+".html", b)
	}
	b, err := Page(compared(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "compared.html", b)
	if !strings.Contains(string(b), `<figure class="chart" data-series="2"`) || !strings.Contains(string(b), "declared exponential(45, { max = 300 })") {
		t.Error("the compare step has no histogram of observed and declared")
	}
	b, err = Comparison([]*record.Record{load(t, "sampled"), variant(t)}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.html", b)
}

// TestPageContent checks what the golden review could miss: NULL apart
// from the empty string, nothing loaded, the recovery measured.
func TestPageContent(t *testing.T) {
	r := load(t, "orders")
	r.Experiments[0].Steps[1].Output.Tables = []record.Table{{Columns: []string{"a", "b", "c"}, Rows: [][]string{{"NULL", "", "NULL"}}, Nulls: [][2]int{{0, 0}}}}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`<td class="null" title="SQL NULL">NULL</td><td class="empty" title="empty string"></td><td>NULL</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "url("} {
		for _, m := range regexp.MustCompile(regexp.QuoteMeta(bad)+`[^"<]*`).FindAllString(page, -1) {
			// Endpoints of the record are text, not loaded.
			if strings.HasPrefix(m, "http://127.0.0.1") || strings.HasPrefix(m, "http://lab_reader@127.0.0.1") || strings.HasPrefix(m, "http://www.w3.org/") {
				continue
			}
			t.Errorf("page has %q", m)
		}
	}
	s, err := Page(load(t, "sampled"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`data-time-to-running-ms="\d+"`).Match(s) || !strings.Contains(string(s), "Job state: running again") {
		t.Error("the sampled page does not show the measured recovery")
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	a, b := load(t, "sampled"), variant(t)
	files, err := Write(dir, []*record.Record{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("files %v", files)
	}
	if _, err := Write(dir, []*record.Record{a, load(t, "orders")}); err == nil || !strings.Contains(err.Error(), "different labs") {
		t.Errorf("two labs: %v", err)
	}
}
