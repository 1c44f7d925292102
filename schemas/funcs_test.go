package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// evalFunc evaluates one HCL expression with the lab's functions and
// returns the distribution it made, or the error text.
func evalFunc(t *testing.T, src string, readFile func(string) ([]byte, error)) (cty.Value, *Dist, string) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags.Error())
	}
	ctx := &hcl.EvalContext{
		Functions: Functions(readFile),
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
			"delay":   cty.StringVal("45s"),
			"weights": cty.MapVal(map[string]cty.Value{"PAID": cty.NumberIntVal(80), "FAILED": cty.NumberIntVal(20)}),
		})},
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		var msgs []string
		for _, d := range diags {
			msgs = append(msgs, d.Summary+": "+d.Detail)
		}
		return cty.NilVal, nil, strings.Join(msgs, "; ")
	}
	if v.Type() == distType {
		return v, v.EncapsulatedValue().(*Dist), ""
	}
	return v, nil, ""
}

func f64(x float64) *float64 { return &x }

func TestDistributions(t *testing.T) {
	for _, c := range []struct {
		src  string
		want Dist
	}{
		{`uniform(1, 10)`, Dist{Kind: DistUniform, Min: f64(1), Max: f64(10)}},
		{`uniform(5, 5)`, Dist{Kind: DistUniform, Min: f64(5), Max: f64(5)}},
		{`uniform("1s", "1m")`, Dist{Kind: DistUniform, Min: f64(1), Max: f64(60)}},
		{`uniform_int(-3, 3)`, Dist{Kind: DistUniformInt, Min: f64(-3), Max: f64(3)}},
		{`normal(100, 15)`, Dist{Kind: DistNormal, Mean: 100, Stddev: 15}},
		{`normal(0, 0)`, Dist{Kind: DistNormal}},
		{`normal(100, 15, { min = 0, max = 200 })`, Dist{Kind: DistNormal, Mean: 100, Stddev: 15, Min: f64(0), Max: f64(200)}},
		{`lognormal(4.0, 0.7, { min = 1 })`, Dist{Kind: DistLogNormal, Mu: 4, Sigma: 0.7, Min: f64(1)}},
		{`exponential("45s")`, Dist{Kind: DistExponential, Mean: 45}},
		{`exponential(var.delay, { max = "5m" })`, Dist{Kind: DistExponential, Mean: 45, Max: f64(300)}},
		{`exponential(0.5)`, Dist{Kind: DistExponential, Mean: 0.5}},
		{`exponential("1h30m")`, Dist{Kind: DistExponential, Mean: 5400}},
		{`weighted({ b = 2, a = 1, c = 0 })`, Dist{Kind: DistWeighted, Choices: []Choice{{"a", 1}, {"b", 2}, {"c", 0}}}},
		{`weighted(var.weights)`, Dist{Kind: DistWeighted, Choices: []Choice{{"FAILED", 20}, {"PAID", 80}}}},
		{`sequence()`, Dist{Kind: DistSequence, Start: 1, Step: 1}},
		{`sequence(100)`, Dist{Kind: DistSequence, Start: 100, Step: 1}},
		{`sequence(-5, 10)`, Dist{Kind: DistSequence, Start: -5, Step: 10}},
		{`now()`, Dist{Kind: DistNow}},
		{`outcome()`, Dist{Kind: DistOutcome}},
		{`parent("order_id")`, Dist{Kind: DistParent, Field: "order_id"}},
		{`outcome_map({ PAID = "PAID", FAILED = null, LATE = 3, OK = true })`, Dist{Kind: DistOutcomeMap, Map: []MapEntry{
			{Outcome: "FAILED"}, {Outcome: "LATE", Value: json.Number("3")}, {Outcome: "OK", Value: true}, {Outcome: "PAID", Value: "PAID"},
		}}},
		{`outcome_map({ PAID = now(), FAILED = parent("x") })`, Dist{Kind: DistOutcomeMap, Map: []MapEntry{
			{Outcome: "FAILED", Dist: &Dist{Kind: DistParent, Field: "x"}}, {Outcome: "PAID", Dist: &Dist{Kind: DistNow}},
		}}},
		{`outcome_map({ PAID = false ? now() : null })`, Dist{Kind: DistOutcomeMap, Map: []MapEntry{{Outcome: "PAID"}}}},
	} {
		_, got, err := evalFunc(t, c.src, nil)
		if err != "" {
			t.Errorf("%s: %s", c.src, err)
			continue
		}
		if got == nil || !reflect.DeepEqual(*got, c.want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(c.want)
			t.Errorf("%s = %s, want %s", c.src, g, w)
		}
	}
}

func TestDistributionErrors(t *testing.T) {
	for _, c := range []struct{ src, err string }{
		{`uniform(10, 1)`, "max (1) is less than min (10)"},
		{`uniform("1m", "1s")`, "max (1) is less than min (60)"},
		{`uniform(1)`, "Not enough function arguments"},
		{`uniform(1, "x")`, `"x" is neither a number nor a duration`},
		{`uniform(null, 1)`, "must not be null"},
		{`uniform(true, 1)`, "a number or a duration is required"},
		{`uniform(1, 1e400)`, "the number must be finite"},
		{`uniform_int(1.5, 3)`, "uniform_int takes whole numbers"},
		{`normal(0, -1)`, "stddev must not be negative"},
		{`lognormal(0, -0.1)`, "sigma must not be negative"},
		{`normal(0, 1, { min = 5, max = 1 })`, "max (1) is less than min (5)"},
		{`normal(0, 1, { mean = 2 })`, `unknown option "mean"`},
		{`normal(0, 1, "wide")`, "options must be an object"},
		{`normal(0, 1, {}, {})`, "too many arguments"},
		{`normal(0, 1, { min = "x" })`, "option min:"},
		{`exponential(0)`, "the mean must be positive, not 0"},
		{`exponential(-1)`, "the mean must be positive, not -1"},
		{`exponential("0s")`, "the mean must be positive, not 0"},
		{`exponential("-5s")`, "the mean must be positive, not -5"},
		{`exponential("soon")`, `"soon" is neither a number nor a duration`},
		{`weighted({ a = 1, b = -2 })`, `weight of "b" is negative (-2)`},
		{`weighted({ a = 0, b = 0 })`, "at least one weight must be positive"},
		{`weighted({})`, "at least one weight must be positive"},
		{`weighted(["a", "b"])`, "weights must be an object"},
		{`weighted({ a = "heavy" })`, `weight of "a":`},
		{`weighted({ a = null })`, `weight of "a": a number is required, not null`},
		{`sequence(1, 0)`, "the step must be positive"},
		{`sequence(1, -1)`, "the step must be positive"},
		{`sequence(1.5)`, "a whole number is required"},
		{`sequence(1, 2, 3)`, "sequence takes a start and a step"},
		{`now(1)`, "Too many function arguments"},
		{`parent(null)`, "must not be null"},
		{`outcome_map(["PAID"])`, "outcome_map takes an object"},
		{`outcome_map({ PAID = weighted({ a = 1 }) })`, "only constants, now(), parent() and (for a delay) numeric distributions can be mapped"},
		{`outcome_map({ PAID = ["x"] })`, "a string, number, bool or null is required"},
		{`gaussian(1, 2)`, "Call to unknown function"},
		{`file("x.sql")`, "Call to unknown function"}, // no file() without a lab directory
	} {
		_, got, err := evalFunc(t, c.src, nil)
		if err == "" {
			g, _ := json.Marshal(got)
			t.Errorf("%s = %s, want an error containing %q", c.src, g, c.err)
			continue
		}
		if !strings.Contains(err, c.err) {
			t.Errorf("%s: %q, want it to contain %q", c.src, err, c.err)
		}
	}
}

func TestStandardFunctions(t *testing.T) {
	for src, want := range map[string]cty.Value{
		`upper("a")`:                                 cty.StringVal("A"),
		`format("%03d", 7)`:                          cty.StringVal("007"),
		`length([1, 2])`:                             cty.NumberIntVal(2),
		`join(",", ["a", "b"])`:                      cty.StringVal("a,b"),
		`max(1, 5)`:                                  cty.NumberIntVal(5),
		`tostring(5)`:                                cty.StringVal("5"),
		`contains(["a"], "a")`:                       cty.True,
		`lookup({ a = 1 }, "b", 2)`:                  cty.NumberIntVal(2),
		`jsonencode({ a = 1 })`:                      cty.StringVal(`{"a":1}`),
		`trimspace("  x ")`:                          cty.StringVal("x"),
		`replace("a-b", "-", "_")`:                   cty.StringVal("a_b"),
		`coalesce(null, "b")`:                        cty.StringVal("b"),
		`element(["a", "b"], 1)`:                     cty.StringVal("b"),
		`regex("[0-9]+", "abc123")`:                  cty.StringVal("123"),
		`keys({ b = 1, a = 2 })[0]`:                  cty.StringVal("a"),
		`split(",", "a,b")[1]`:                       cty.StringVal("b"),
		`floor(2.5) + ceil(2.5)`:                     cty.NumberIntVal(5),
		`abs(-3)`:                                    cty.NumberIntVal(3),
		`lower("A")`:                                 cty.StringVal("a"),
		`tonumber("4")`:                              cty.NumberIntVal(4),
		`jsondecode("[1]")[0]`:                       cty.NumberIntVal(1),
		`sort(["b", "a"])[0]`:                        cty.StringVal("a"),
		`length(distinct([1, 1, 2]))`:                cty.NumberIntVal(2),
		`length(range(3))`:                           cty.NumberIntVal(3),
		`length(keys(merge({ a = 1 }, { b = 2 })))`:  cty.NumberIntVal(2),
		`length(concat([1], [2]))`:                   cty.NumberIntVal(2),
		`values({ a = "x" })[0]`:                     cty.StringVal("x"),
		`min(3, 1)`:                                  cty.NumberIntVal(1),
		`length(keys({}))`:                           cty.NumberIntVal(0),
		`upper(lower(trimspace(" Mixed ")))`:         cty.StringVal("MIXED"),
		`format("%s-%s", "a", tostring(1))`:          cty.StringVal("a-1"),
		`contains(keys({ PAID = 1 }), "FAILED")`:     cty.False,
		`length(split(" ", "one word")) == 2`:        cty.True,
		`lookup({ PAID = "x" }, "PAID", "y")`:        cty.StringVal("x"),
		`jsonencode(["<", ">"])`:                     cty.StringVal(`["\u003c","\u003e"]`),
		`length(jsondecode("{\"a\": [1, 2]}").a)`:    cty.NumberIntVal(2),
		`format("%.1f", 2.25)`:                       cty.StringVal("2.2"),
		`join("", [for s in ["a", "b"] : upper(s)])`: cty.StringVal("AB"),
	} {
		got, d, err := evalFunc(t, src, nil)
		if err != "" || d != nil {
			t.Errorf("%s: %s", src, err)
			continue
		}
		if !got.RawEquals(want) {
			t.Errorf("%s = %#v, want %#v", src, got, want)
		}
	}
}

func TestFileFunction(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "jobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs", "a.sql"), []byte("SELECT 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fileReader(dir, nil)

	got, _, err := evalFunc(t, `file("jobs/a.sql")`, read)
	if err != "" || got.AsString() != "SELECT 1\n" {
		t.Errorf("file(jobs/a.sql) = %#v, %s", got, err)
	}
	got, _, err = evalFunc(t, `file("./jobs/../jobs/a.sql")`, read)
	if err != "" || got.AsString() != "SELECT 1\n" {
		t.Errorf("a path that stays inside: %#v, %s", got, err)
	}
	for src, want := range map[string]string{
		`file("jobs/b.sql")`:            `no file "jobs/b.sql" in the lab directory`,
		`file("../secret.txt")`:         "outside the lab directory",
		`file("jobs/../../secret.txt")`: "outside the lab directory",
		`file("` + filepath.Join(filepath.Dir(dir), "secret.txt") + `")`: "outside the lab directory",
		`file("jobs")`: "is a directory",
		`file(null)`:   "must not be null",
	} {
		_, _, err := evalFunc(t, src, read)
		if !strings.Contains(err, want) {
			t.Errorf("%s: %q, want it to contain %q", src, err, want)
		}
	}
}

// TestFileFunctionRefuses checks that file() reads neither through a
// symbolic link out of the lab, nor what is not a regular file (a FIFO
// would block until a writer comes, /dev/zero never ends), nor more than
// MaxReadFileBytes, and that it says so at once.
func TestFileFunctionRefuses(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "lab")
	for _, d := range []string{filepath.Join(dir, "jobs"), filepath.Join(base, "keys")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(base, "keys", "id_rsa"), []byte("PRIVATE KEY"))
	write(filepath.Join(dir, "jobs", "a.sql"), []byte("SELECT 1\n"))
	write(filepath.Join(dir, "big.json"), make([]byte, MaxReadFileBytes+1))
	link(filepath.Join(base, "keys", "id_rsa"), "jobs/key.sql") // absolute, out of the lab
	link("../../keys/id_rsa", "jobs/rel.sql")                   // relative, out of the lab
	link(filepath.Join(base, "keys"), "keys")                   // a directory out of the lab
	link("/dev/zero", "zero.sql")                               // a device, through a link
	link("a.sql", "jobs/same.sql")                              // inside: fine
	if err := syscall.Mkfifo(filepath.Join(dir, "jobs", "fifo.sql"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fileReader(dir, nil)

	got, _, err := evalFunc(t, `file("jobs/same.sql")`, read)
	if err != "" || got.AsString() != "SELECT 1\n" {
		t.Errorf("a link inside the lab: %#v, %s", got, err)
	}
	for src, want := range map[string]string{
		`file("jobs/key.sql")`:  "leads through a symbolic link to " + filepath.Join(base, "keys", "id_rsa") + ", outside the lab directory",
		`file("jobs/rel.sql")`:  "outside the lab directory",
		`file("keys/id_rsa")`:   "outside the lab directory",
		`file("zero.sql")`:      "leads through a symbolic link to /dev/zero, outside the lab directory",
		`file("jobs/fifo.sql")`: `file "jobs/fifo.sql" is a FIFO, not a regular file`,
		`file("big.json")`:      `file "big.json" is larger than 8 MiB`,
	} {
		start := time.Now()
		done := make(chan string, 1)
		go func() { _, _, err := evalFunc(t, src, read); done <- err }()
		select {
		case err := <-done:
			if !strings.Contains(err, want) {
				t.Errorf("%s: %q, want it to contain %q", src, err, want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s took %v", src, d)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still reads after 10 s", src)
		}
	}
}

// TestFileFunctionTotal checks that file() stops reading once a load has
// read MaxReadFileTotal in all, as a for expression may read one file for
// each of its elements.
func TestFileFunctionTotal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.txt"), make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	read := fileReader(dir, &Parser{})
	_, _, err := evalFunc(t, `join("", [for i in range(100) : file("m.txt")])`, read)
	if !strings.Contains(err, "file() has read more than 64 MiB in all in this lab") {
		t.Errorf("100 reads of 4 MiB: %q", err)
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		in   cty.Value
		want float64
		err  string
	}{
		{cty.NumberIntVal(5), 5, ""},
		{cty.NumberFloatVal(0.25), 0.25, ""},
		{cty.StringVal("45s"), 45, ""},
		{cty.StringVal("1m30s"), 90, ""},
		{cty.StringVal("250ms"), 0.25, ""},
		{cty.StringVal("-2s"), -2, ""},
		{cty.StringVal("5"), 0, "neither a number nor a duration"},
		{cty.StringVal("1d"), 86400, ""},
		{cty.StringVal("2w12h"), 1252800, ""},
		{cty.StringVal("3x"), 0, "neither a number nor a duration"},
		{cty.NullVal(cty.Number), 0, "not null"},
		{cty.UnknownVal(cty.Number), 0, "not known"},
		{cty.True, 0, "a number or a duration is required"},
		{cty.ListValEmpty(cty.Number), 0, "a number or a duration is required"},
	} {
		got, err := number(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("number(%#v): %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("number(%#v) = %g, %v; want an error containing %q", c.in, got, err, c.err)
		case c.err == "" && got != c.want:
			t.Errorf("number(%#v) = %g, want %g", c.in, got, c.want)
		}
	}
}

func TestSQLStringAndTry(t *testing.T) {
	fns := Functions(nil)
	for in, want := range map[string]string{"books": "'books'", "it's": "'it''s'", `a\b`: `'a\\b'`} {
		got, err := fns["sql_string"].Call([]cty.Value{cty.StringVal(in)})
		if err != nil || got.AsString() != want {
			t.Errorf("sql_string(%q) = %v (%v), want %s", in, got, err, want)
		}
	}
	if got, _ := fns["sql_string"].Call([]cty.Value{cty.NullVal(cty.String)}); got.AsString() != "NULL" {
		t.Errorf("sql_string(null) = %v, want NULL", got)
	}
	if got, _ := fns["sql_string"].Call([]cty.Value{cty.NumberIntVal(42)}); got.AsString() != "'42'" {
		t.Errorf("sql_string(42) = %v, want '42'", got)
	}
	if _, ok := fns["try"]; !ok {
		t.Error("try is not in the function table")
	}
	if _, ok := fns["can"]; !ok {
		t.Error("can is not in the function table")
	}
}

func TestSecondsBetween(t *testing.T) {
	fn := Functions(nil)["seconds_between"]
	for _, c := range []struct {
		from, to string
		want     float64
		err      string
	}{
		{"2026-12-02 04:40:03.250", "2026-12-02 04:40:07.750", 4.5, ""},
		{"2026-12-02 04:40:03", "2026-12-02 04:40:01.5", -1.5, ""},        // a server's text without fractions
		{"2026-12-02T04:40:03Z", "2026-12-02 04:41:03.001", 60.001, ""},   // RFC 3339 against a query's text
		{"2026-12-01 23:59:59.999", "2026-12-02 00:00:00.000", 0.001, ""}, // across midnight
		{"2026-12-02 04:40:03", "yesterday", 0, `"yesterday" is not a time`},
	} {
		got, err := fn.Call([]cty.Value{cty.StringVal(c.from), cty.StringVal(c.to)})
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("seconds_between(%q, %q) = %v, %v; want an error containing %q", c.from, c.to, got, err, c.err)
			}
		case err != nil:
			t.Errorf("seconds_between(%q, %q): %v", c.from, c.to, err)
		default:
			if f, _ := got.AsBigFloat().Float64(); f != c.want {
				t.Errorf("seconds_between(%q, %q) = %g, want %g", c.from, c.to, f, c.want)
			}
		}
	}
}

// TestLengthOfCaptures: the loans lab's four expectations called length()
// on a captured object ({ for r in result.rows : r.genre => r.n }), which
// cty's length refused on data that was right. Objects and strings have a
// length; lists, tuples and maps keep theirs; a number has none.
func TestLengthOfCaptures(t *testing.T) {
	rows := cty.TupleVal([]cty.Value{
		cty.ObjectVal(map[string]cty.Value{"genre": cty.StringVal("crime"), "n": cty.NumberIntVal(3)}),
		cty.ObjectVal(map[string]cty.Value{"genre": cty.StringVal("poetry"), "n": cty.NumberIntVal(1)}),
	})
	m := cty.MapVal(map[string]cty.Value{"a": cty.NumberIntVal(1)})
	ctx := &hcl.EvalContext{Functions: Functions(nil), Variables: map[string]cty.Value{"rows": rows, "m": m}}
	for src, want := range map[string]int64{
		`length({ for r in rows : r.genre => r.n })`:                   2,
		`length(keys({ for r in rows : r.genre => r.n }))`:             2,
		`lookup({ for r in rows : r.genre => r.n }, "crime", 0)`:       3,
		`length({ a = 1, b = 2, c = 3 })`:                              3,
		`length([for r in rows : r.n])`:                                2,
		`length(m)`:                                                    1,
		`length("héllo")`:                                              5,
		`length([])`:                                                   0,
		`length({ for r in rows : r.genre => r.n if r.n > 5 })`:        0,
		`values({ for r in rows : r.genre => r.n })[0] + length(rows)`: 5,
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		v, diags := expr.Value(ctx)
		if diags.HasErrors() {
			t.Errorf("%s: %s", src, diags.Error())
			continue
		}
		if got, _ := v.AsBigFloat().Int64(); got != want {
			t.Errorf("%s = %d, want %d", src, got, want)
		}
	}
	expr, _ := hclsyntax.ParseExpression([]byte(`length(5)`), "t.hcl", hcl.InitialPos)
	if _, diags := expr.Value(ctx); !diags.HasErrors() {
		t.Error("length(5) has a value")
	}
}

func TestTimeArithmeticModel(t *testing.T) {
	lab, diags := NewParser().Load(filepath.Join("testdata", "valid", "time_arithmetic"), Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p := lab.Producers[0]
	day := 24 * time.Hour
	for _, c := range []struct {
		got  *Dist
		want Dist
	}{
		{p.Fields[2].Dist, Dist{Kind: DistField, Field: "created_at", Offset: 14 * day}},
		{p.Fields[3].Dist, Dist{Kind: DistNow, Offset: 14*day - time.Hour}},
		{p.Follows[0].Fields[3].Dist, Dist{Kind: DistParent, Field: "created_at", Offset: 14 * day}},
		{p.Follows[0].Update[0].Dist, Dist{Kind: DistNow, Offset: 36 * time.Hour}},
	} {
		if !reflect.DeepEqual(*c.got, c.want) {
			t.Errorf("got %+v, want %+v", *c.got, c.want)
		}
	}
	if d := p.Follows[0].Delay; d.Mean != 7*86400 || *d.Max != 30*86400 {
		t.Errorf("delay %+v", d)
	}
}

func TestParseLongDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"14d", 14 * 24 * time.Hour, ""},
		{"2w", 14 * 24 * time.Hour, ""},
		{"1.5d", 36 * time.Hour, ""},
		{"2w3d12h30m", (17*24+12)*time.Hour + 30*time.Minute, ""},
		{"-1h30m", -90 * time.Minute, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"0", 0, ""},
		{"14", 0, "without a unit"},
		{"14x", 0, `unknown unit "x"`},
		{"d", 0, "not a duration"},
		{"", 0, "not a duration"},
		{"99999999999w", 0, "too long"},
	} {
		got, err := parseLongDuration(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestTimeArithmeticOddOperands: a null, a conditional or a string beside
// a time is a diagnostic, never a panic, and sums of numbers still work.
func TestTimeArithmeticOddOperands(t *testing.T) {
	head := "lab \"t\" {\n  title = \"T\"\n}\n\nstack {\n  mysql {}\n}\n\ntable \"t\" {\n  key = [\"id\"]\n  column \"id\" { type = \"bigint\" }\n  column \"at\" { type = \"timestamp(3)\" }\n  column \"n\" {\n    type     = \"int\"\n    nullable = true\n  }\n  store \"mysql\" {}\n}\n\n"
	for _, c := range []struct{ at, n, err string }{
		{`(true ? null : duration("1d")) + now()`, `1`, "A time plus a null"},
		{`now() + (false ? duration("1d") : null)`, `1`, "A time plus a null"},
		{`now() + "1d"`, `1`, "A time plus a string"},
		{`((now()) + duration("1d"))`, `1 + 2 - 3`, ""},
		{`now()`, `1` + strings.Repeat(" + 1", 200), ""},
	} {
		dir := t.TempDir()
		src := head + "producer \"p\" {\n  table = table.t\n  rate = 1\n  field \"id\" { value = sequence(1) }\n  field \"at\" { value = " + c.at + " }\n  field \"n\" { value = " + c.n + " }\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, diags := NewParser().Load(dir, Options{})
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: took %v", c.at, time.Since(start))
		}
		switch {
		case c.err == "" && diags.HasErrors():
			t.Errorf("%s: %s", c.at, diags.Error())
		case c.err != "" && (!diags.HasErrors() || !strings.Contains(diags.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.at, diags, c.err)
		}
	}
}
