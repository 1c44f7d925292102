package schemas

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// The fixtures under testdata follow terraform's testdata/invalid-files:
// each case is a directory holding a small lab, and every diagnostic the
// lab must produce is written as a comment on the line its Subject starts
// at:
//
//	rate = "fast" # ERROR: Incorrect attribute value type
//
// WARNING: marks a warning. A diagnostic without a Subject (such as a
// missing lab block or a -var for an undeclared variable) is written
// "# ERROR (no range): Summary" anywhere in the case. The comparison is
// exact: a missing diagnostic fails, and so does an extra one.
//
// A case may hold an "args" file, one option per line:
//
//	-var NAME=VALUE
//	-var-file FILE      (relative to the case directory)
//	env NAME=VALUE      (an entry of the environment)
//	lint                (run the lints: Options.Lint)
//
// Variable files are named *.vars so that they are not lab files; their
// comments are read for annotations too.

// annotationPattern finds "# ERROR: Summary" and "# WARNING (no range): Summary".
var annotationPattern = regexp.MustCompile(`#\s*(ERROR|WARNING)(\s*\(no range\))?:\s*([^#]*)`)

// diagKey says where a diagnostic points and what it says.
type diagKey struct {
	file    string // base name; "" for no range
	line    int
	summary string
	warning bool
}

func (k diagKey) String() string {
	sev := "ERROR"
	if k.warning {
		sev = "WARNING"
	}
	if k.file == "" {
		return fmt.Sprintf("(no range) %s: %s", sev, k.summary)
	}
	return fmt.Sprintf("%s:%d: %s: %s", k.file, k.line, sev, k.summary)
}

// sqlAnnotationPattern is the same in an SQL comment: "-- ERROR: Summary",
// for diagnostics at a line of a case's jobs/*.sql or presets/*.sql.
var sqlAnnotationPattern = regexp.MustCompile(`--\s*(ERROR|WARNING)(\s*\(no range\))?:\s*(.*)`)

// expectedDiags reads the annotations of every .hcl and .vars file of dir,
// and of the .sql files in its jobs and presets folders.
func expectedDiags(t *testing.T, dir string) []diagKey {
	t.Helper()
	var out []diagKey
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".hcl") || strings.HasSuffix(e.Name(), ".vars") {
			names = append(names, e.Name())
		}
	}
	for _, sub := range []string{"jobs", "presets"} {
		sqls, _ := filepath.Glob(filepath.Join(dir, sub, "*.sql"))
		for _, s := range sqls {
			names = append(names, filepath.Join(sub, filepath.Base(s)))
		}
	}
	for _, name := range names {
		pattern := annotationPattern
		if strings.HasSuffix(name, ".sql") {
			pattern = sqlAnnotationPattern
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			for _, m := range pattern.FindAllStringSubmatch(sc.Text(), -1) {
				k := diagKey{file: filepath.Base(name), line: line, summary: strings.TrimSpace(m[3]), warning: m[1] == "WARNING"}
				if m[2] != "" {
					k.file, k.line = "", 0
				}
				out = append(out, k)
			}
		}
		f.Close()
	}
	return out
}

// caseOptions reads a case's args file.
func caseOptions(t *testing.T, dir string) Options {
	t.Helper()
	var opts Options
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if os.IsNotExist(err) {
		return opts
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		flag, arg, _ := strings.Cut(line, " ")
		switch flag {
		case "-var":
			name, value, ok := strings.Cut(arg, "=")
			if !ok {
				t.Fatalf("%s/args: -var takes NAME=VALUE: %q", dir, line)
			}
			opts.Vars = append(opts.Vars, VarArg{Name: name, Value: value})
		case "-var-file":
			opts.Vars = append(opts.Vars, VarArg{File: filepath.Join(dir, arg)})
		case "env":
			opts.Environ = append(opts.Environ, arg)
		case "lint":
			opts.Lint = true
		default:
			t.Fatalf("%s/args: unknown option line %q", dir, line)
		}
	}
	return opts
}

func actualDiags(diags hcl.Diagnostics) []diagKey {
	var out []diagKey
	for _, d := range diags {
		k := diagKey{summary: d.Summary, warning: d.Severity == hcl.DiagWarning}
		if d.Subject != nil {
			k.file, k.line = filepath.Base(d.Subject.Filename), d.Subject.Start.Line
		}
		out = append(out, k)
	}
	return out
}

// diffDiags compares two multisets of diagnostics.
func diffDiags(want, got []diagKey) (missing, extra []diagKey) {
	count := map[diagKey]int{}
	for _, k := range got {
		count[k]++
	}
	for _, k := range want {
		if count[k] > 0 {
			count[k]--
			continue
		}
		missing = append(missing, k)
	}
	for _, k := range got {
		if count[k] > 0 {
			count[k]--
			extra = append(extra, k)
		}
	}
	return missing, extra
}

func caseDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("no cases under %s", root)
	}
	return out
}

// checkCase loads one fixture and compares its diagnostics with its
// annotations; it returns the lab and the diagnostics for further checks.
func checkCase(t *testing.T, dir string) (*Lab, hcl.Diagnostics) {
	t.Helper()
	lab, diags := NewParser().Load(dir, caseOptions(t, dir))
	want := expectedDiags(t, dir)
	missing, extra := diffDiags(want, actualDiags(diags))
	for _, k := range missing {
		t.Errorf("missing diagnostic %s", k)
	}
	for _, k := range extra {
		t.Errorf("unexpected diagnostic %s", k)
	}
	if len(missing)+len(extra) > 0 {
		for _, d := range diags {
			t.Logf("got: %s", formatDiag(d))
		}
	}
	return lab, diags
}

// formatDiag is terraform's compact form "file:line,col-col: Summary; Detail".
func formatDiag(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return fmt.Sprintf("%s; %s", d.Summary, d.Detail)
	}
	r := d.Subject
	return fmt.Sprintf("%s:%d,%d-%d: %s; %s", filepath.Base(r.Filename), r.Start.Line, r.Start.Column, r.End.Column, d.Summary, d.Detail)
}

func TestInvalidFixtures(t *testing.T) {
	root := filepath.Join("testdata", "invalid")
	for _, name := range caseDirs(t, root) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			if len(expectedDiags(t, dir)) == 0 {
				t.Fatalf("invalid case %s declares no expected diagnostic", name)
			}
			_, diags := checkCase(t, dir)
			if !diags.HasErrors() {
				t.Errorf("invalid case %s loaded without errors", name)
			}
			for _, d := range diags {
				if d.Subject != nil && d.Subject.Filename == "" {
					t.Errorf("diagnostic %q has a Subject without a file name", d.Summary)
				}
			}
		})
	}
}

func TestValidFixtures(t *testing.T) {
	root := filepath.Join("testdata", "valid")
	for _, name := range caseDirs(t, root) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			for _, k := range expectedDiags(t, dir) {
				if !k.warning {
					t.Fatalf("valid case %s expects an error: %s", name, k)
				}
			}
			lab, diags := checkCase(t, dir)
			if diags.HasErrors() {
				return
			}
			if lab == nil || lab.Stack == nil {
				t.Fatalf("valid case %s: no lab", name)
			}
			// Whatever loads must survive lab.json.
			b, err := MarshalLab(lab)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "lab.json")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := ReadLabJSON(path)
			if err != nil {
				t.Fatal(err)
			}
			again, err := MarshalLab(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(b) {
				t.Errorf("lab.json does not survive a round trip:\n%s\n---\n%s", b, again)
			}
		})
	}
}

// TestFixtureHarness makes sure the comparison above can fail: a missing,
// an extra, a misplaced and a duplicated diagnostic are all differences.
func TestFixtureHarness(t *testing.T) {
	a := diagKey{file: "lab.hcl", line: 3, summary: "Invalid name"}
	b := diagKey{file: "lab.hcl", line: 4, summary: "Invalid name"}
	w := diagKey{file: "lab.hcl", line: 3, summary: "Invalid name", warning: true}
	for _, c := range []struct {
		name           string
		want, got      []diagKey
		missing, extra int
	}{
		{"same", []diagKey{a, b}, []diagKey{b, a}, 0, 0},
		{"missing", []diagKey{a, b}, []diagKey{a}, 1, 0},
		{"extra", []diagKey{a}, []diagKey{a, b}, 0, 1},
		{"other line", []diagKey{a}, []diagKey{b}, 1, 1},
		{"twice", []diagKey{a}, []diagKey{a, a}, 0, 1},
		{"warning is not an error", []diagKey{a}, []diagKey{w}, 1, 1},
	} {
		m, e := diffDiags(c.want, c.got)
		if len(m) != c.missing || len(e) != c.extra {
			t.Errorf("%s: %d missing, %d extra; want %d, %d", c.name, len(m), len(e), c.missing, c.extra)
		}
	}

	dir := t.TempDir()
	src := "lab \"x\" { # ERROR: First # WARNING: Second\n}\n# ERROR (no range): Third\n"
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := expectedDiags(t, dir)
	want := []diagKey{
		{file: "lab.hcl", line: 1, summary: "First"},
		{file: "lab.hcl", line: 1, summary: "Second", warning: true},
		{summary: "Third"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("annotations = %v, want %v", got, want)
	}
}

// TestPinnedRanges pins the whole range and text of a few diagnostics, in
// terraform's "file:line,col-col: Summary; Detail" form.
func TestPinnedRanges(t *testing.T) {
	for _, c := range []struct {
		fixture string
		want    []string
	}{
		{"invalid/unknown_references", []string{
			`lab.hcl:25,11-22: Reference to undeclared table; No table named "order" is declared in this lab. Did you mean orders?`,
			`lab.hcl:38,15-29: Reference to undeclared table; No table named "payments" is declared in this lab.`,
			`lab.hcl:46,27-42: Reference to undeclared table; No table named "customers" is declared in this lab.`,
			`lab.hcl:47,12-25: Reference to undeclared table; No table named "nowhere" is declared in this lab.`,
			`lab.hcl:54,23-31: Reference to undeclared job; No job named "kopy" is declared in this lab. Did you mean copy?`,
			`lab.hcl:57,13-26: Reference to undeclared preset; No preset named "latest" is declared in this lab.`,
			`lab.hcl:61,21-30: Reference to undeclared job; No job named "other" is declared in this lab.`,
		}},
		// A step's reference to a later step, to itself, or to a misspelt
		// one each says so.
		{"invalid/run_time_references", []string{
			"lab.hcl:21,24-42: Reference to a later step; Step pick of experiment first runs after this one: steps run in order, and a step can use only what steps before it captured.",
			"lab.hcl:37,28-49: Reference to the step itself; Step selfish cannot read its own captures through step.selfish: in its capture, expect and until, use result.",
			"lab.hcl:42,24-45: Value not captured; Step pick of experiment first captures order_id, not \"customer_id\".",
			"lab.hcl:47,24-43: Value not captured; Step plain of experiment first captures nothing, so step.plain.order_id has no value; add capture = { order_id = ... } to that step.",
			"lab.hcl:52,24-41: Reference to unknown step; pik is not an earlier step of experiment first; a step can use only what steps before it captured. Did you mean pick?",
			"lab.hcl:57,24-33: Incomplete reference; Name the captured value: step.pick.<capture>.",
			"lab.hcl:62,24-55: Reference to a later experiment; Experiment second (number 2) runs after first (number 1), so its captures are not known yet.",
			"lab.hcl:67,24-55: Reference to unknown experiment; No experiment named \"zeroth\" is declared in this lab.",
			"lab.hcl:72,48-58: Reference to undeclared variable; No variable named \"offset\" is declared in this lab.",
			"lab.hcl:77,48-60: Unknown name in a run-time expression; \"local\" is not known here; a step can use var.NAME, step.STEP.CAPTURE, experiment.EXPERIMENT.STEP.CAPTURE and, in capture, expect and until, result.",
			"lab.hcl:97,24-50: Value not captured; Step pick of experiment first captures order_id, not \"nope\".",
			"lab.hcl:102,24-54: Reference to unknown step; pock is not an earlier step of experiment first; a step can use only what steps before it captured. Did you mean pick?",
		}},
		// A run-time expression's unknown function suggests the closest
		// one, and a wrong argument count shows how the function is
		// called; the capture without run-time values (line 26) is
		// evaluated on load, and HCL's own report is the only one.
		{"invalid/run_time_functions", []string{
			`lab.hcl:21,15-18: Call to unknown function; There is no function named "sum", so this expression would fail when a run evaluates it.`,
			`lab.hcl:22,15-21: Call to unknown function; There is no function named "lenght", so this expression would fail when a run evaluates it. Did you mean length?`,
			`lab.hcl:23,15-43: Too many function arguments; upper(str) takes 1 argument; this call passes 2.`,
			`lab.hcl:24,18-22: Function not available at run time; file() works only in what the loader evaluates (it reads the lab directory); this expression is evaluated during a run, where there is no file().`,
			`lab.hcl:25,15-19: Function not available at run time; file() works only in what the loader evaluates (it reads the lab directory); this expression is evaluated during a run, where there is no file().`,
			`lab.hcl:26,15-25: Call to unknown function; There is no function named "frobnicate".`,
			`lab.hcl:27,22-25: Call to unknown function; There is no function named "sum", so this expression would fail when a run evaluates it.`,
			`lab.hcl:29,20-30: Call to unknown function; There is no function named "frobnicate", so this expression would fail when a run evaluates it.`,
			`lab.hcl:32,19-29: Call to unknown function; There is no function named "frobnicate", so this expression would fail when a run evaluates it.`,
			`lab.hcl:36,19-54: Not enough function arguments; seconds_between(from, to) takes 2 arguments; this call passes 1.`,
			`lab.hcl:48,15-21: Call to unknown function; There is no function named "lenght", so this expression would fail when a run evaluates it. Did you mean length?`,
			`lab.hcl:54,24-53: Too many function arguments; sql_string(value) takes 1 argument; this call passes 2.`,
			`lab.hcl:59,13-23: Call to unknown function; There is no function named "frobnicate", so this expression would fail when a run evaluates it.`,
		}},
		{"invalid/duplicate_variable", []string{
			`lab.hcl:9,10-16: Duplicate variable; A variable named "rate" was already declared at testdata/invalid/duplicate_variable/lab.hcl:5,1-16.`,
		}},
		{"invalid/result_outside", []string{
			`lab.hcl:24,24-41: result is not available here; result is the outcome of the step itself and can be used in capture, expect and wait's until; here, use a value an earlier step captured (step.NAME.VALUE).`,
			`lab.hcl:30,15-32: result is not available here; result is the outcome of the step itself and can be used in capture, expect and wait's until; here, use a value an earlier step captured (step.NAME.VALUE).`,
		}},
		{"invalid/job_sql", []string{
			`dropped.sql:2,1-7: Column missing from the job's output; Job dropped writes wide, but its query yields 2 column(s) and none named "paid": the table's column paid would have no value.`,
			`misspelt.sql:1,1-7: Column missing from the job's output; Job misspelt writes wide, but its query yields 4 column(s) and none named "amount": the table's column amount would have no value.`,
			`misspelt.sql:3,13-18: Output column not in the written table; Job misspelt writes wide, which has no column "amont". Did you mean amount?`,
			`misspelt.sql:4,3-32: Output column without a name; Flink names this column EXPR$n, so it cannot be inserted into wide by name; end it with AS <column>.`,
			"reserved.sql:4,3-8: Reserved word as a name; VIEWS is a reserved word in Flink's SQL; as a name it must be quoted: `views`.",
			`types.sql:4,3-37: Output column type does not fit; Job wrong_types writes DOUBLE into wide.amount, which is DECIMAL(12,2); Flink does not cast it implicitly and rejects the INSERT ("Incompatible types for sink column"). Write CAST(… AS DECIMAL(12,2)).`,
			`types.sql:5,3-16: Output column type does not fit; Job wrong_types writes a string literal into wide.paid, which is BOOLEAN; Flink does not cast it implicitly and rejects the INSERT ("Incompatible types for sink column"). Write CAST(… AS BOOLEAN).`,
			`undeclared.sql:4,6-10: Query reads an undeclared table; The query of job file_undeclared names wide, which is not in its reads; add table.wide to reads so its definition is rendered.`,
			`undeclared.sql:5,6-13: Query reads an undeclared table; The query of job file_undeclared names nowhere, but no table of this lab is called so; declare it and add it to reads.`,
			`lab.hcl:38,97-105: Query reads an undeclared table; The query of job plain_undeclared names payments, which is not in its reads; add table.payments to reads so its definition is rendered.`,
			`lab.hcl:85,20-56: Output column type does not fit; Job wrong_types_inline writes STRING into wide.order_id, which is BIGINT; Flink does not cast it implicitly and rejects the INSERT ("Incompatible types for sink column"). Write CAST(… AS BIGINT).`,
			"reserved.sql:1,28-32: Reserved word as a name; RANK is a reserved word in MySQL's SQL; as a name it must be quoted: `rank`.",
		}},
		// Root causes first, though producer.hcl sorts before tables.hcl:
		// the misspelt attribute that left due_at out of loans, then the
		// invalid name that left Repayments out, then what referred to
		// them.
		{"invalid/root_cause_first", []string{
			`tables.hcl:8,5-12: Unsupported argument; An argument named "nulable" is not expected here. Did you mean "nullable"?`,
			`tables.hcl:14,7-19: Invalid name; A table name must start with a lowercase letter and contain only lowercase letters, digits and underscores (it becomes an identifier); "Repayments" does not.`,
			`producer.hcl:9,15-31: Reference to undeclared table; No table named "repayments" is declared in this lab.`,
			`producer.hcl:18,7-13: Unknown column; Table loans has no column "due_at" to update.`,
		}},
		// Weights without weighted(): each message names its attribute,
		// and outcome's shows the author's weights wrapped, on one line
		// (or an example, where they are too long for one).
		{"invalid/unwrapped_outcome", []string{
			`lab.hcl:35,28-39: Invalid value; A field value is a constant or a distribution such as uniform(1, 10): a string, number, bool or null is required, not object.`,
			`lab.hcl:40,15-41: Invalid outcome; outcome takes weighted(): outcome = weighted({ PAID = 80, FAILED = 20 }).`,
			`lab.hcl:49,13-24: Invalid value; A delay is a number of seconds, a duration, or a numeric distribution such as exponential("45s"): a string, number, bool or null is required, not object.`,
			`lab.hcl:50,15-6: Invalid outcome; outcome takes weighted(): outcome = weighted({ OK = 9, LOST = 1 }).`,
			`lab.hcl:60,16-28: Invalid value; The new value of status is a constant or a distribution such as uniform(1, 10): a string, number, bool or null is required, not object.`,
			`lab.hcl:67,15-119: Invalid outcome; outcome takes weighted(): outcome = weighted({ PAID = 80, FAILED = 20 }).`,
		}},
		// Time arithmetic: the type errors point at the sum, the unit at
		// the duration's text.
		{"invalid/time_arithmetic", []string{
			`lab.hcl:42,32-42: A time plus a number; A number has no unit; add a duration such as duration("40s") or duration("14d") to a time.`,
			`lab.hcl:43,46-49: Invalid function argument; Invalid value for "text" parameter: "14x" has the unknown unit "x"; the units are w, d, h, m, s, ms, us and ns.`,
			`lab.hcl:44,26-62: Value does not fit the column; Column "note" is string: a time plus a duration fits timestamp and date columns.`,
			`lab.hcl:45,26-40: A duration alone; A field value is a constant or a distribution such as uniform(1, 10); a duration is added to a time, as in now() + duration("14d").`,
			`lab.hcl:53,31-49: Unknown field; No field "member_id" is declared above this one; field() reads a field of the same row declared before it. A field cannot read itself.`,
			`lab.hcl:54,32-64: Unknown field; No field "due_at" is declared above this one; field() reads a field of the same row declared before it. Declare field "due_at" above this one.`,
			`lab.hcl:55,28-63: A duration added to a non-time; field("member_id") is int; a duration is added to a timestamp or a date.`,
			`lab.hcl:56,26-39: Two times combined; A time plus or minus a time has no meaning here; add a duration to one time, as in now() + duration("14d").`,
			`lab.hcl:57,26-56: A duration plus a distribution; A duration is added to a time: now(), parent("c") or field("c"), as in now() + duration("14d").`,
			`lab.hcl:66,35-68: A duration minus a time; Subtract the duration from the time instead: now() - duration("1h").`,
			`lab.hcl:69,16-52: field() in an update; field() reads another field of the row being written; an update has none. Use parent("created_at") for the parent row's value.`,
			`lab.hcl:70,16-34: A duration plus a number; A duration is added to a time: now(), parent("c") or field("c"), as in now() + duration("14d").`,
		}},
		{"invalid/missing_lab", []string{
			`Missing lab block; Every lab declares itself once: lab "name" { title = "..." } in one of the .hcl files of testdata/invalid/missing_lab.`,
		}},
	} {
		dir := filepath.Join("testdata", c.fixture)
		_, diags := NewParser().Load(dir, caseOptions(t, dir))
		var got []string
		for _, d := range diags {
			got = append(got, formatDiag(d))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", c.fixture, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
