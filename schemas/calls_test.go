package schemas

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestCheckCalls covers the argument counts a fixture does not: none,
// a minimum, and an expanding last argument.
func TestCheckCalls(t *testing.T) {
	for _, c := range []struct {
		src    string
		loaded bool
		want   string // "Summary; Detail", or "" for no diagnostic
	}{
		{`length(result.rows)`, false, ""},
		{`max(result.rows[*].n...)`, false, ""},
		{`try(result.rows[0].n, 0)`, false, ""},
		{`normal(1, 2, { min = 0 }, result.x)`, false, ""},
		{`now(result.x)`, false, "Too many function arguments; now() takes no arguments; this call passes 1."},
		{`normal(result.x)`, false, "Not enough function arguments; normal(mean, stddev, options...) takes at least 2 arguments; this call passes 1."},
		{`upper(result.x, result.y...)`, false, ""}, // the list may be empty
		{`upper(result.x, result.y, result.z...)`, false, "Too many function arguments; upper(str) takes 1 argument; this call passes 2 and a list."},
		{`seconds_between(result.x...)`, false, ""}, // the list may hold both
		{`Length(result.rows)`, false, `Call to unknown function; There is no function named "Length", so this expression would fail when a run evaluates it. Did you mean length?`},
		// Evaluated on load: HCL has reported these.
		{`frobnicate(1)`, true, ""},
		{`upper("a", "b")`, true, ""},
		{`file("x")`, true, "Function not available at run time; file() works only in what the loader evaluates (it reads the lab directory); this expression is evaluated during a run, where there is no file()."},
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(c.src), "test.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", c.src, diags.Error())
		}
		d := &decoder{ctx: &hcl.EvalContext{Functions: Functions(fileReader(t.TempDir(), nil))}}
		d.checkCalls(expr, c.loaded)
		var got []string
		for _, x := range d.diags {
			got = append(got, x.Summary+"; "+x.Detail)
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s: got %q, want %q", c.src, got, c.want)
		}
	}
}
