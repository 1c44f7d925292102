package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func sample() *Record {
	end := t0.Add(90 * time.Second)
	return &Record{
		Format: Format, ID: "20261129-100000-abcd", Status: RunFinished,
		Lab:       Lab{Name: "orders", Title: "Six experiments", Hash: "sha256:0123"},
		Variables: []Variable{{Name: "order_rate", Value: json.RawMessage(`5`), Source: "default"}},
		Seed:      7, Labgen: "dev",
		Images:    []Image{{Component: "mysql", Image: "mysql:8.0"}},
		Jobs:      []Job{{Name: "order_wide", Mode: "streaming", ID: "b954", How: "submitted"}},
		Endpoints: []Endpoint{{Name: "MySQL", Address: MySQLDSN("reader:pa$$w0rd\"x@tcp(127.0.0.1:3306)/shop?parseTime=true")}},
		Limits:    Limits{MaxRows: 20, MaxBytes: 1 << 20, StepTimeout: "1m0s"},
		Selected:  []string{"trace", "later"},
		Started:   t0, Ended: &end,
		Experiments: []*Experiment{{
			Name: "trace", Number: 2, Title: "Trace one order", Status: ExpDone, Total: 3,
			Steps: []*Step{
				{Name: "pick", Kind: "query", Status: StatusOK, Started: t0, DurationMS: 12,
					Ran:      &Ran{What: "clickhouse", SQL: "SELECT 1 -- pa$$w0rd\"x"},
					Output:   &Output{Tables: []Table{{Columns: []string{"order_id", "note"}, Rows: [][]string{{"7", "a|b\nc"}}}}},
					Captures: []Capture{{Name: "order_id", Expr: "result.rows[0].order_id", Display: "7"}, {Name: "notes", Expr: "length(result.rows)", Value: json.RawMessage(`1`), Display: "1"}},
					Counts:   map[string]int64{"rows": 1}},
				{Name: "check", Kind: "query", Status: StatusError, Error: "Error 1146 (42S02): Table 'shop.nope' doesn't exist",
					Expectations: []Expectation{{Message: "has rows", Condition: "length(result.rows) > 0", Held: false}}},
			},
		}},
	}
}

func TestWriteMasksAndReadsBack(t *testing.T) {
	dir := t.TempDir()
	r := sample()
	m := NewMasker("pa$$w0rd\"x", "ab") // "ab" is too short to mask
	if err := Write(dir, r, m); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{JSONName, MarkdownName} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "pa$$w0rd") || strings.Contains(string(b), `pa$$w0rd\"x`) {
			t.Errorf("%s holds the password:\n%s", name, b)
		}
		if !strings.Contains(string(b), Masked) {
			t.Errorf("%s masks nothing", name)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Experiments[0].Steps[0].Captures[0].Display != "7" || back.Endpoints[0].Address != "reader:****@tcp(127.0.0.1:3306)/shop" {
		t.Fatalf("read back: %+v", back.Endpoints)
	}
	if back.Count().Errors != 1 || !back.Failed() {
		t.Fatal("the failed step is not counted")
	}
}

func TestMarkdown(t *testing.T) {
	md := string(Markdown(sample()))
	for _, want := range []string{
		"# Lab record: Six experiments",
		"| Flink job order_wide | `b954` (submitted)",
		"## 02 Trace one order",
		"### 1. pick",
		"| order_id | note",
		`| 7        | a\|b ⏎ c |`,
		"- Captured `order_id` = `7`",
		"- Expectation **not held**: has rows (`length(result.rows) > 0`)",
		"Error:\n\n```\nError 1146 (42S02): Table 'shop.nope' doesn't exist\n```",
		"*1 more step(s) not run yet",
		"Not run yet: later.",
		"**2 steps: 1 ok, 1 failed, 0 timed out, 0 skipped; expectations 0 held, 1 not held.**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("record.md lacks %q:\n%s", want, md)
		}
	}
}

func TestCellBounds(t *testing.T) {
	if got := Cell(strings.Repeat("é", 10), 4); got != "éééé…" {
		t.Fatal(got)
	}
}

func TestDiff(t *testing.T) {
	a, b := sample(), sample()
	b.ID = "other"
	b.Started = t0.Add(time.Hour)
	b.Jobs[0].ID = "ffff"
	b.Experiments[0].Steps[0].DurationMS = 999
	if ds, err := Diff(a, b); err != nil || len(ds) != 0 {
		t.Fatalf("volatile fields differ: %v, %v", ds, err)
	}
	// The order followed is an identifier: it differs on every run and is
	// not a difference; the number of notes is.
	b.Experiments[0].Steps[0].Captures[0].Display = "8"
	b.Experiments[0].Steps[0].Captures[1].Display = "3"
	b.Experiments[0].Steps[0].Counts["rows"] = 3
	b.Experiments[0].Steps[1].Status = StatusOK
	b.Experiments[0].Steps[1].Expectations[0].Held = true
	b.Experiments[0].Steps = append(b.Experiments[0].Steps, &Step{Name: "extra", Status: StatusSkipped})
	four, six := 4.125, 6.0
	const def = "sha256:0123456789ab"
	a.Experiments[0].Measures = []Measure{{Name: "lag", Title: "lag", Unit: "s", Definition: def, Value: &four}}
	b.Experiments[0].Measures = []Measure{{Name: "lag", Title: "lag", Unit: "s", Definition: def, Value: &six}, {Name: "gone", Title: "gone", Definition: def, Error: "step.x.y was not captured"}}
	ds, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := FormatDiff(ds)
	want := `02 trace: measure “lag”: 4.12 s → 6.00 s
02 trace: measure “gone”: (absent) → not measured: step.x.y was not captured
02 trace / pick: captured notes: 1 → 3
02 trace / pick: rows: 1 → 3
02 trace / check: status: error → ok
02 trace / check: expectation “has rows”: not held → held
02 trace / extra: step: not run → skipped
`
	if got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
}

func TestMaskHelpers(t *testing.T) {
	if got := URL("clickhouse://reader:s3cret@127.0.0.1:9000/analytics?password=x&dial_timeout=1s"); strings.Contains(got, "s3cret") || strings.Contains(got, "password=x") {
		t.Fatal(got)
	}
	if !SecretKey("MYSQL_CDC_PASSWORD") || SecretKey("MYSQL_CDC_USER") {
		t.Fatal("SecretKey")
	}
}

// TestCountSeparatesJobs keeps failed job submissions out of the step
// counts while still failing the run.
func TestCountSeparatesJobs(t *testing.T) {
	r := &Record{
		Experiments: []*Experiment{{Steps: []*Step{{Status: StatusOK}}}},
		Jobs:        []Job{{Name: "order_wide", How: "failed"}},
	}
	c := r.Count()
	if c.Errors != 0 || c.JobErrors != 1 || !r.Failed() {
		t.Fatalf("counts %+v, failed %v: want no failed step, one failed job, and a failed run", c, r.Failed())
	}
	want := "1 steps: 1 ok, 0 failed, 0 timed out, 0 skipped; expectations 0 held, 0 not held; 1 streaming job(s) could not be submitted."
	if got := c.Summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A machine's path is replaced by its stand-in text, in Markdown and JSON.
func TestMaskerReplace(t *testing.T) {
	m := NewMasker("s3cret")
	m.Replace("/home/ann/labs/out", "<lab>")
	got := m.MaskString("'warehouse' = 'file:///home/ann/labs/out/.native/warehouse', password s3cret")
	if want := "'warehouse' = 'file://<lab>/.native/warehouse', password ****"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(m.MaskJSON([]byte(`{"sql":"/home/ann/labs/out/x"}`))); got != `{"sql":"\u003clab\u003e/x"}` {
		t.Errorf("JSON: %s", got)
	}
}

// A job submitted again because its script changed says which job it
// replaced; a record without the field (older labgen) reads as before.
func TestResubmittedJob(t *testing.T) {
	r := sample()
	r.Jobs = []Job{{Name: "order_wide", Mode: "streaming", ID: "b955", How: "resubmitted", Replaced: "b954"}}
	if md := string(Markdown(r)); !strings.Contains(md, "`b955` (resubmitted); it replaced `b954`, whose script differed from the one rendered now") {
		t.Errorf("record.md does not say what the job replaced:\n%s", md)
	}
	var old Job
	if err := json.Unmarshal([]byte(`{"name":"order_wide","mode":"streaming","id":"b954","how":"running"}`), &old); err != nil || old.Replaced != "" || old.How != "running" {
		t.Errorf("an older record's job: %+v, %v", old, err)
	}
	if b, _ := json.Marshal(Job{Name: "order_wide", How: "running"}); strings.Contains(string(b), "replaced") {
		t.Errorf("a job that replaced none writes %s", b)
	}
}

func TestJavaSizeAndHeapText(t *testing.T) {
	for in, want := range map[string]int64{"536870902": 536870902, "512m": 512 << 20, "2G": 2 << 30, "64k": 64 << 10} {
		if got, ok := JavaSize(in); !ok || got != want {
			t.Errorf("JavaSize(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "m", "x1", "-5m"} {
		if _, ok := JavaSize(bad); ok {
			t.Errorf("JavaSize(%q) accepted", bad)
		}
	}
	// As Flink's JobManager was started on the native stack.
	if got := HeapText("-Xmx301989887"); got != "288 MiB (-Xmx301989887)" {
		t.Errorf("HeapText = %q", got)
	}
	if got := HeapText(""); got != "the JVM's default (no -Xmx)" {
		t.Errorf("HeapText of no flag = %q", got)
	}
}
