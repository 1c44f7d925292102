package publish

import (
	"bytes"
	"encoding/json"
	"flag"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
						var n float64
						if err := json.Unmarshal(v, &n); err != nil {
							t.Fatal(err)
						}
						s.Samples[i].Values[k] = []byte(strconv.FormatFloat(n*10, 'f', -1, 64))
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
	if !regexp.MustCompile(`data-time-to-running-ms="\d+"`).Match(s) || !strings.Contains(string(s), "Time to running: ") {
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

// real is a committed record of a real run (docs/records).
func real(t *testing.T, id string) *record.Record {
	t.Helper()
	r, err := record.Read(filepath.Join("..", "docs", "records", "orders", id))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tags and space reduce a page's HTML, or record.md's Markdown, to the
// words a reader sees.
var (
	blocks  = regexp.MustCompile(`</?(?:td|th|tr|li|p|div|ul|h\d|caption|figcaption)\b[^>]*>`)
	tags    = regexp.MustCompile(`<[^>]*>`)
	mdMarks = regexp.MustCompile("\\*\\*|`")
	space   = regexp.MustCompile(`\s+`)
)

func words(s string) string {
	s = tags.ReplaceAllString(blocks.ReplaceAllString(s, " "), "")
	return strings.TrimSpace(space.ReplaceAllString(html.UnescapeString(s), " "))
}

// svgs are a page's charts, left out where its text is read.
var svgs = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// chartSeries is a sampled series as a step of a record keeps it.
func sampledStep(name string, at time.Time, values ...map[string]string) *record.Step {
	s := &record.Step{Name: name, Kind: "wait", Status: record.StatusOK, Started: at, Sampled: "step `probe` every 1s for 4s: …",
		Ran: &record.Ran{What: "wait", Detail: "Re-ran step `probe` every 1s for 4s."}}
	for i, v := range values {
		sm := record.Sample{At: at.Add(time.Duration(i) * time.Second), MS: int64(i) * 1000, Values: map[string]json.RawMessage{}}
		for k, x := range v {
			sm.Values[k] = json.RawMessage(x)
		}
		s.Samples = append(s.Samples, sm)
	}
	return s
}

// TestChartsOnlyQuantities: a chart is drawn for a numeric series that is
// no identifier and changes over more than one point; a constant series
// or a changed text is a line of text; identifiers and single points are
// left to the samples table.
func TestChartsOnlyQuantities(t *testing.T) {
	at := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	probe := sampledStep("probe", at,
		map[string]string{"order_id": "489", "payment id": "7", "followed": "489", "lag": "1", "restored": "12", "state": `"RESTARTING"`, "once": "5"},
		map[string]string{"order_id": "490", "payment id": "8", "followed": "490", "lag": "4", "restored": "12", "state": `"RUNNING"`},
		map[string]string{"order_id": "491", "payment id": "9", "followed": "491", "lag": "2", "restored": "12", "state": `"RUNNING"`},
	)
	// followed reads the key column its step shows: an identifier by its
	// values.
	probe.Output = &record.Output{Tables: []record.Table{{Columns: []string{"order_id"}, Rows: [][]string{{"489"}, {"490"}, {"491"}}}}}
	r := load(t, "orders")
	r.Experiments = []*record.Experiment{{Name: "probe", Number: 1, Title: "Probe", Status: record.ExpDone, Total: 1, Steps: []*record.Step{probe}}}
	b, err := Page(r)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	caps := regexp.MustCompile(`<figcaption>([^<]*)</figcaption>`).FindAllStringSubmatch(page, -1)
	if len(caps) != 1 || caps[0][1] != "lag over time" {
		t.Errorf("charts %q, want only lag's", caps)
	}
	text := words(svgs.ReplaceAllString(page, ""))
	for _, want := range []string{"restored: 12 throughout (3 samples, 0.0 s–2.0 s)", "state: RESTARTING from 0.0 s, RUNNING from 1.0 s"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	for _, bad := range []string{"order_id:", "payment id:", "followed:", "once:", "order_id over time", "followed over time"} {
		if strings.Contains(text, bad) {
			t.Errorf("the page says %q: an identifier or a single point outside its table", bad)
		}
	}
}

// TestRecoveryTheSame: record.md and the page state the measured recovery
// in the same words, with the same numbers (a real run's record, whose
// service steps have only their command, and the sampled fixture).
func TestRecoveryTheSame(t *testing.T) {
	for _, r := range []*record.Record{real(t, "20261201-015500-7f18"), load(t, "sampled")} {
		e := r.Experiment("worker_recovery")
		rec := record.Recovery(e)
		if rec == nil || !rec.Recovers {
			t.Fatalf("%s: no recovery measured", r.ID)
		}
		para := rec.Markdown()
		md := string(record.Markdown(r))
		if !strings.Contains(md, "\n"+para+"\n") {
			t.Errorf("%s: record.md lacks the recovery paragraph", r.ID)
		}
		b, err := Page(r)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?s)<div class="recovery callout"[^>]*>(.*?)</div>`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: the page has no recovery", r.ID)
		}
		if got, want := words(string(m[1])), words(mdMarks.ReplaceAllString(para, "")); got != want {
			t.Errorf("%s: the page says\n%s\nrecord.md says\n%s", r.ID, got, want)
		}
	}
	// The real run: 45.0 s from the stop, 14.9 s from the start, 9.8 s
	// from the service being up (its lab's capture, 9706 ms, counts from
	// the wait's start, just after).
	para := record.Recovery(real(t, "20261201-015500-7f18").Experiment("worker_recovery")).Markdown()
	for _, want := range []string{"**45.0 s after the stop**", "14.9 s after the start", "9.8 s after the service was up"} {
		if !strings.Contains(para, want) {
			t.Errorf("the real run's recovery lacks %q:\n%s", want, para)
		}
	}
}

// TestSQLFolded: a job's long SQL, at each of the four steps that ran it,
// is folded; the second time onwards says where it was first.
func TestSQLFolded(t *testing.T) {
	b, err := Page(real(t, "20261201-015500-7f18"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	sums := regexp.MustCompile(`<details class="sql"><summary>([^<]*)</summary>`).FindAllStringSubmatch(page, -1)
	jobs := 0
	for _, s := range sums {
		if strings.HasPrefix(s[1], "SQL sql/flink/hourly_sales.sql, 110 lines") {
			jobs++
		}
	}
	if jobs != 4 || !strings.Contains(page, "110 lines, the same as at 04 hourly_summary / batch") {
		t.Errorf("the job's SQL is folded %d times, want 4: %q", jobs, sums)
	}
	if n := strings.Count(page, `<pre class="sql"><code>-- sql/flink/hourly_sales.sql`); n != 4 {
		t.Errorf("the job's SQL is on the page %d times", n)
	}
	if !strings.Contains(page, `<pre class="sql"><code>SELECT COUNT(*) AS n FROM orders</code></pre>`) {
		t.Error("a short query is folded")
	}
}

// TestComparisonMeasures: the comparison of two real runs sets side by
// side what they measured, and no identifier (which orders the steps
// followed differs on every run).
func TestComparisonMeasures(t *testing.T) {
	b, err := Comparison([]*record.Record{real(t, "20261201-015500-7f18"), real(t, "20261130-224338-087c")}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	text := words(svgs.ReplaceAllString(string(b), ""))
	for _, want := range []string{
		"recovery running again after taskmanager stopped 45.0 s 53.4 s",
		"recovered condition held after 9.7 s held after 13.8 s",
		"audit captured count_delta 45 13",
		"batch took 35.2 s 54.3 s",
		"cohort_complete Measured: every order of the cohort has exactly one row in ClickHouse after the recovery. held held",
		"payment_delays ended ok not run",
		"The lab itself differs",
		"No variable differs, nor the seed.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
	for _, bad := range []string{"order_id", "first_id", "last_id", "1170", "1370", "489", "491", "order_ids"} {
		if strings.Contains(text, bad) {
			t.Errorf("the comparison shows the identifier %q", bad)
		}
	}
	for _, c := range regexp.MustCompile(`<figcaption>([^<]*)</figcaption>`).FindAllStringSubmatch(string(b), -1) {
		if record.IsIdentifierName(strings.TrimPrefix(c[1], "06 worker_recovery: ")) || strings.Contains(c[1], "_id") {
			t.Errorf("an identifier is overlaid: %s", c[1])
		}
	}
}

// TestWriteRefusesUnsafeIDs: a record's id names its page, and record.json
// is anyone's to write: an id that is no plain file name refuses the
// publish, naming the record, before anything is written.
func TestWriteRefusesUnsafeIDs(t *testing.T) {
	for _, id := range []string{"../../../victim/index", "a/b", ".hidden", "", `a\b`, "x y", "é"} {
		top := t.TempDir()
		out := filepath.Join(top, "a", "b", "site")
		r := load(t, "sampled")
		r.ID = id
		files, err := Write(out, []*record.Record{load(t, "orders"), r})
		if err == nil || !strings.Contains(err.Error(), "record 2 of 2 (lab ") || !strings.Contains(err.Error(), "refusing to publish it") {
			t.Errorf("id %q: %v", id, err)
		}
		if len(files) != 0 {
			t.Errorf("id %q: wrote %v", id, files)
		}
		// Nothing at all: not the victim, not even the directory.
		_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if p != top {
				t.Errorf("id %q: %s was written", id, p)
			}
			return err
		})
	}
}

// TestWriteStaysInside: a symbolic link in -o that leads out of it is not
// followed: publish fails, saying so, and nothing outside -o changes. (A
// subdirectory linked out of -o is there too; a page's name has no
// slash, so no page can reach it.)
func TestWriteStaysInside(t *testing.T) {
	top := t.TempDir()
	out, victim := filepath.Join(top, "site"), filepath.Join(top, "victim")
	for _, d := range []string{out, victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(victim, "index.html")
	if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := load(t, "sampled")
	// A subdirectory of -o linked out of it, and the page's own name a
	// link to the victim's file.
	if err := os.Symlink(victim, filepath.Join(out, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(out, r.ID+".html")); err != nil {
		t.Fatal(err)
	}
	_, err := Write(out, []*record.Record{r})
	if err == nil || !strings.Contains(err.Error(), "writing "+r.ID+".html into "+out) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a page's name linked out of -o: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Errorf("the file outside -o changed: %.40q", b)
	}
}

// TestPageCutsCellsAndTexts: a record.json may hold anything; its page is
// only as big as the record's limits let it be. A cell of 1 MB is cut at
// max_cell as record.md cuts it, a text of 1 MB at max_bytes, and the page
// says both; a record that declares no limits gets the defaults.
func TestPageCutsCellsAndTexts(t *testing.T) {
	const mb = 1 << 20
	for _, lim := range []record.Limits{{MaxRows: 20, MaxBytes: 4096, MaxCell: 50, StepTimeout: "1m0s"}, {}} {
		r := load(t, "orders")
		r.Limits = lim
		base, err := Page(r)
		if err != nil {
			t.Fatal(err)
		}
		cellMax, textMax := lim.CellMax(), textMax(lim)
		s := r.Experiments[0].Steps[1]
		s.Output = &record.Output{Tables: []record.Table{{Columns: []string{"a", "b"}, Rows: [][]string{{strings.Repeat("x", mb), "short"}}}},
			Text: strings.Repeat("y", mb)}
		s.Error = strings.Repeat("z", mb)
		b, err := Page(r)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if grew := len(b) - len(base); grew > 2*textMax+cellMax+4096 {
			t.Errorf("limits %+v: three values of 1 MB made the page %d bytes bigger", lim, grew)
		}
		wantCell := `<td class="cut" title="cut at ` + strconv.Itoa(cellMax) + ` characters; record.json keeps the whole value">` + strings.Repeat("x", cellMax) + "…</td><td>short</td>"
		if !strings.Contains(page, wantCell) {
			t.Errorf("limits %+v: the cell is not cut at %d characters, saying so", lim, cellMax)
		}
		for _, c := range []string{"y", "z"} {
			want := strings.Repeat(c, textMax) + "… (" + strconv.Itoa(mb-textMax) + " more characters; record.json keeps the whole value)"
			if !strings.Contains(page, want) || strings.Contains(page, strings.Repeat(c, textMax+1)) {
				t.Errorf("limits %+v: the text of %q is not cut at %d characters, saying so", lim, c, textMax)
			}
		}
		if !strings.Contains(page, "table cells cut at "+strconv.Itoa(cellMax)+" characters") || !strings.Contains(page, "other texts on this page cut at "+strconv.Itoa(textMax)+" characters") {
			t.Errorf("limits %+v: the page does not say where it cuts", lim)
		}
		// The record itself is not changed: record.json keeps it whole.
		if len(s.Output.Tables[0].Rows[0][0]) != mb || len(s.Error) != mb {
			t.Error("Page cut the record it was given")
		}
	}
	// A record that declares huge limits still gets a bounded page.
	if n := textMax(record.Limits{MaxCell: 1 << 30, MaxBytes: 1 << 30}); n != ceilingText {
		t.Errorf("declared limits of 1 GiB let a text be %d characters", n)
	}
}
