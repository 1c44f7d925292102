package schemas

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

const seedLab = "../labs/orders"

// loadSeed loads the seed lab with opts and fails on any error.
func loadSeed(t *testing.T, opts Options) (*Lab, hcl.Diagnostics) {
	t.Helper()
	lab, diags := NewParser().Load(seedLab, opts)
	if diags.HasErrors() {
		for _, d := range diags {
			t.Log(formatDiag(d))
		}
		t.Fatalf("the seed lab has errors with %+v", opts)
	}
	return lab, diags
}

func vars(kv ...string) Options {
	var o Options
	for _, s := range kv {
		name, value, _ := strings.Cut(s, "=")
		o.Vars = append(o.Vars, VarArg{Name: name, Value: value})
	}
	return o
}

func (l *Lab) producer(t *testing.T, name string) *Producer {
	t.Helper()
	for _, p := range l.Producers {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no producer %s", name)
	return nil
}

func (p *Producer) follow(t *testing.T, name string) *Follow {
	t.Helper()
	for _, f := range p.Follows {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("producer %s has no follow %s", p.Name, name)
	return nil
}

func (l *Lab) variable(t *testing.T, name string) *Variable {
	t.Helper()
	for _, v := range l.Variables {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variable %s", name)
	return nil
}

func TestSeedLabValidates(t *testing.T) {
	lab, diags := loadSeed(t, Options{})
	if len(diags) != 0 {
		for _, d := range diags {
			t.Error(formatDiag(d))
		}
	}
	if lab.Name != "orders" || lab.Seed != 20261129 {
		t.Errorf("lab %q seed %d", lab.Name, lab.Seed)
	}
	var numbers []int
	for _, e := range lab.Experiments {
		numbers = append(numbers, e.Number)
		if e.Unavailable != "" {
			t.Errorf("experiment %d unavailable in the full stack: %s", e.Number, e.Unavailable)
		}
		if len(e.Steps) == 0 {
			t.Errorf("experiment %d has no steps", e.Number)
		}
	}
	if got := fmt.Sprint(numbers); got != "[1 2 3 4 5 6 7]" {
		t.Errorf("experiment numbers %s, want 1..7 in order", got)
	}
	for _, j := range lab.Jobs {
		if j.Unavailable != "" {
			t.Errorf("job %s unavailable in the full stack: %s", j.Name, j.Unavailable)
		}
	}
	for _, c := range []string{"mysql", "kafka", "flink", "clickhouse", "fluss", "iceberg"} {
		if !lab.Stack.Has(c) {
			t.Errorf("the seed stack does not run %s", c)
		}
	}
	shop := lab.producer(t, "shop")
	if shop.Rate != 5 {
		t.Errorf("default rate %g, want 5", shop.Rate)
	}
	if d := shop.follow(t, "payment").Delay; d.Kind != DistExponential || d.Mean != 45 || d.Max == nil || *d.Max != 300 {
		t.Errorf("default payment delay %+v, want exponential with mean 45s, max 5m", d)
	}
}

func TestSeedLabRateAndDelay(t *testing.T) {
	lab, diags := loadSeed(t, vars("order_rate=50", "payment_delay=10s"))
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	shop := lab.producer(t, "shop")
	if shop.Rate != 50 {
		t.Errorf("rate %g, want 50", shop.Rate)
	}
	if d := shop.follow(t, "payment").Delay; d.Kind != DistExponential || d.Mean != 10 {
		t.Errorf("payment delay %+v, want exponential with mean 10s", d)
	}
	if v := lab.variable(t, "order_rate"); string(v.Value) != "50" || v.Source != "var" {
		t.Errorf("order_rate = %s from %s, want 50 from var", v.Value, v.Source)
	}
	if v := lab.variable(t, "payment_delay"); string(v.Value) != `"10s"` || v.Source != "var" {
		t.Errorf("payment_delay = %s from %s, want \"10s\" from var", v.Value, v.Source)
	}
	b, err := MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"rate": 50`) {
		t.Errorf("lab.json does not carry the rate 50")
	}

	// The validation of order_rate holds the seed lab to sane rates.
	_, diags = NewParser().Load(seedLab, vars("order_rate=0"))
	if !diags.HasErrors() || diags[0].Summary != "Invalid value for variable" {
		t.Errorf("order_rate=0 gave %v, want the validation's error", diags)
	}
}

func TestSeedLabWithoutLakes(t *testing.T) {
	lab, diags := loadSeed(t, vars("lakes=false"))
	if lab.Stack.Fluss != nil || lab.Stack.Iceberg != nil {
		t.Errorf("lakes=false still runs fluss or iceberg")
	}
	if got := strings.Join(lab.Stack.Disabled, ","); got != "fluss,iceberg" {
		t.Errorf("disabled components %q, want fluss,iceberg", got)
	}

	available := map[int]bool{}
	for _, e := range lab.Experiments {
		available[e.Number] = e.Unavailable == ""
	}
	for n, want := range map[int]bool{1: true, 2: true, 3: true, 4: false, 5: false, 6: true} {
		if available[n] != want {
			t.Errorf("experiment %d available = %v, want %v", n, available[n], want)
		}
	}
	unavailableJobs := map[string]bool{}
	for _, j := range lab.Jobs {
		if j.Unavailable != "" {
			unavailableJobs[j.Name] = true
		}
	}
	if len(unavailableJobs) != 2 || !unavailableJobs["hourly_sales"] || !unavailableJobs["lake_audit"] {
		t.Errorf("unavailable jobs %v, want hourly_sales and lake_audit", unavailableJobs)
	}

	// One warning each, pointing at the block that is unavailable.
	var got []string
	for _, d := range diags {
		if d.Severity != hcl.DiagWarning {
			t.Errorf("unexpected error %s", formatDiag(d))
			continue
		}
		src, err := os.ReadFile(d.Subject.Filename)
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Split(string(src), "\n")[d.Subject.Start.Line-1]
		got = append(got, filepath.Base(d.Subject.Filename)+": "+d.Summary+": "+strings.TrimSuffix(strings.TrimSpace(line), " {"))
	}
	sort.Strings(got)
	want := []string{
		`experiments.hcl: Experiment unavailable in this stack: experiment "hourly_summary"`,
		`experiments.hcl: Experiment unavailable in this stack: experiment "lake_reconcile"`,
		`jobs.hcl: Job unavailable in this stack: job "hourly_sales"`,
		`jobs.hcl: Job unavailable in this stack: job "lake_audit"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestVariablePrecedence checks Terraform's order on the variables
// fixture: default, then LABGEN_VAR_, then -var and -var-file in
// command-line order, the later winning.
func TestVariablePrecedence(t *testing.T) {
	dir := filepath.Join("testdata", "valid", "variables")
	lab, diags := NewParser().Load(dir, caseOptions(t, dir))
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	for _, c := range []struct{ name, value, source string }{
		{"from_default", "1", "default"},
		{"from_env", "2", "env"},
		{"from_var", "3", "var-file"},  // -var from_var=4, then first.vars
		{"from_file", "5", "var-file"}, // first.vars, -var from_file=4, then second.vars
		{"untyped", `"hello world"`, "var"},
		{"weights", `{"b":2,"c":3}`, "var"},
	} {
		v := lab.variable(t, c.name)
		if string(v.Value) != c.value || v.Source != c.source {
			t.Errorf("%s = %s from %s, want %s from %s", c.name, v.Value, v.Source, c.value, c.source)
		}
	}
}

func TestSeedLabPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rates.vars")
	if err := os.WriteFile(file, []byte("order_rate = 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"LABGEN_VAR_order_rate=7", "PATH=/bin"}
	for _, c := range []struct {
		name string
		opts Options
		rate float64
	}{
		{"env", Options{Environ: env}, 7},
		{"var beats env", Options{Environ: env, Vars: []VarArg{{Name: "order_rate", Value: "8"}}}, 8},
		{"file after var", Options{Vars: []VarArg{{Name: "order_rate", Value: "8"}, {File: file}}}, 20},
		{"var after file", Options{Vars: []VarArg{{File: file}, {Name: "order_rate", Value: "8"}}}, 8},
		{"last var", Options{Vars: []VarArg{{Name: "order_rate", Value: "8"}, {Name: "order_rate", Value: "9"}}}, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			lab, _ := loadSeed(t, c.opts)
			if r := lab.producer(t, "shop").Rate; r != c.rate {
				t.Errorf("rate %g, want %g", r, c.rate)
			}
		})
	}
}

// TestHeredocStepSQLEvaluates evaluates every deferred step SQL of the seed
// lab the way the runtime does, from lab.json: a heredoc's source must
// parse on its own.
func TestHeredocStepSQLEvaluates(t *testing.T) {
	lab, diags := NewParser().Load("../labs/orders", Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b, err := MarshalLab(lab)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/lab.json"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLabJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := back.VarValues()
	if err != nil {
		t.Fatal(err)
	}
	caps := Captures{}
	for _, e := range back.Experiments {
		for _, s := range e.Steps {
			for _, c := range s.Captures {
				caps.Set(e.Name, s.Name, c.Name, cty.StringVal("42"))
			}
		}
	}
	n := 0
	for _, e := range back.Experiments {
		for _, s := range e.Steps {
			if s.Query == nil || !s.Query.SQL.Deferred() {
				continue
			}
			n++
			v, diags := s.Query.SQL.Eval(RunContext(vars, e.Name, caps, cty.NilVal))
			if diags.HasErrors() {
				t.Errorf("%s.%s: %s", e.Name, s.Name, diags.Error())
				continue
			}
			if !strings.Contains(v.AsString(), "42") {
				t.Errorf("%s.%s: the captured value is not in %q", e.Name, s.Name, v.AsString())
			}
		}
	}
	if n == 0 {
		t.Fatal("the seed lab has no step SQL that uses captured values")
	}
}
