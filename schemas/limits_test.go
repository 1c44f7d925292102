package schemas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// loadSource loads src as the one .hcl file of a lab and returns the
// diagnostics. It runs in the test's own process: a stack overflow or an
// out-of-memory error there is a crash of the test, not a failure it can
// report, so each case passing shows the loader stops first.
func loadSource(t *testing.T, src string) hcl.Diagnostics {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, diags := NewParser().Load(dir, Options{})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the load took %v", d)
	}
	return diags
}

// hasDiag tells whether diags hold an error with summary at line (0:
// any line) whose detail contains detail.
func hasDiag(diags hcl.Diagnostics, summary string, line int, detail string) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary == summary && strings.Contains(d.Detail, detail) &&
			(line == 0 || d.Subject != nil && d.Subject.Start.Line == line) {
			return true
		}
	}
	return false
}

const limitsLab = "lab \"limits\" {\n  title = \"Limits\"\n}\n\nstack {\n  mysql {}\n}\n\n"

func TestNestingLimit(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"parentheses", strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000)},
		{"brackets", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)},
		{"braces", strings.Repeat("{a = ", 100_000) + "1" + strings.Repeat("}", 100_000)},
		{"interpolations", strings.Repeat(`"${`, 50_000) + "1" + strings.Repeat(`}"`, 50_000)},
		// Operators recurse without brackets: unary ones and ?: in the
		// parser, a chain of binary ones when it is evaluated.
		{"not", strings.Repeat("!", 500_000) + "true"},
		{"negation", strings.Repeat("- ", 400_000) + "1"},
		{"sum", "1" + strings.Repeat(" + 1", 200_000)},
		{"sum over lines", "(1" + strings.Repeat(" +\n 1", 150_000) + ")"},
		{"conditionals", strings.Repeat("true ? 1 : ", 80_000) + "1"},
		{"indexes", "[[1]]" + strings.Repeat("[0]", 300_000)},
		{"for over lines", "{for k in [1] : k => 1" + strings.Repeat(" +\n 1", 150_000) + "}"},
		{"just too deep", strings.Repeat("(", MaxNesting) + "1" + strings.Repeat(")", MaxNesting)},
	} {
		t.Run(c.name, func(t *testing.T) {
			diags := loadSource(t, limitsLab+"variable \"deep\" {\n  default = "+c.value+"\n}\n")
			if !hasDiag(diags, "Expression nested too deeply", 0, "more than 256 levels deep") {
				t.Errorf("no nesting error: %v", diags)
			}
			if len(diags) != 1 {
				t.Errorf("%d diagnostics, want the nesting error alone: %v", len(diags), diags)
			}
		})
	}

	// What labs write stays well inside: the seed labs nest at most 18
	// deep by this count.
	for _, value := range []string{
		strings.Repeat("(", MaxNesting/2) + "1" + strings.Repeat(")", MaxNesting/2),
		"[" + strings.Repeat("1 + 1, ", 10_000) + "1]",
		"{\n" + strings.Repeat("  a = 1 + 1 + 1\n", 1_000) + "}",
	} {
		if diags := loadSource(t, limitsLab+"variable \"deep\" {\n  default = "+value+"\n}\n"); diags.HasErrors() {
			t.Errorf("%.40s…: %v", value, diags)
		}
	}
}

func TestForLimit(t *testing.T) {
	for _, c := range []struct{ name, value, summary, detail string }{
		{"nested for", "[for a in range(1000) : [for b in range(1000) : [for c in range(1000) : 1]]]",
			"Too many for expression elements", "more than 100000 elements"},
		{"for in a template", `"%{for a in range(1000)}%{for b in range(1000)}%{for c in range(1000)}x%{endfor}%{endfor}%{endfor}"`,
			"Too many for expression elements", "more than 100000 elements"},
		{"for in a collection", "[for a in [for b in range(1000) : [for c in range(1000) : c]] : [for d in a : [for e in range(1000) : e]]]",
			"Too many for expression elements", "more than 100000 elements"},
		{"range", "range(1000000000)", "Error in function call", "more than 1024 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			diags := loadSource(t, limitsLab+"table \"t\" {\n  description = jsonencode("+c.value+")\n  key = [\"id\"]\n  column \"id\" {\n    type = \"bigint\"\n  }\n  store \"mysql\" {}\n}\n")
			if !hasDiag(diags, c.summary, 10, c.detail) {
				t.Errorf("no %q at line 10: %v", c.summary, diags)
			}
			if len(diags) > 1 {
				t.Errorf("%d diagnostics, want the limit's error alone: %v", len(diags), diags)
			}
		})
	}
	// A variable's default, evaluated without functions, is bounded too.
	list := "[" + strings.Repeat("0, ", 999) + "0]"
	diags := loadSource(t, limitsLab+"variable \"big\" {\n  default = [for a in "+list+" : [for b in "+list+" : [for c in "+list+" : 1]]]\n}\n")
	if !hasDiag(diags, "Too many for expression elements", 10, "") {
		t.Errorf("a variable's default: %v", diags)
	}
	// A lab's own for expressions load.
	if diags := loadSource(t, limitsLab+"variable \"small\" {\n  default = [for a in [1, 2, 3] : [for b in [1, 2] : a * b]]\n}\n"); diags.HasErrors() {
		t.Errorf("a small for expression: %v", diags)
	}
}

// TestCallsStopPastForLimit: past the for expression limit no function
// runs, so the outer elements HCL still goes through cost nothing (three
// nested fors over range(1000) called range a thousand times more).
func TestCallsStopPastForLimit(t *testing.T) {
	calls := 0
	count := function.New(&function.Spec{Type: function.StaticReturnType(cty.Number), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		calls++
		return cty.NumberIntVal(1), nil
	}})
	p := &Parser{}
	fns := p.stopCalls(map[string]function.Function{"count": count})
	if _, err := fns["count"].Call(nil); err != nil || calls != 1 {
		t.Fatalf("within the limit: %v, %d calls", err, calls)
	}
	p.forElements = MaxForElements + 1
	if _, err := fns["count"].Call(nil); !errors.Is(err, errStopped) || calls != 1 {
		t.Fatalf("past the limit: %v, %d calls", err, calls)
	}
}

func TestFileSizeLimit(t *testing.T) {
	src := limitsLab + "# " + strings.Repeat("x", MaxHCLFileBytes) + "\n"
	diags := loadSource(t, src)
	if !hasDiag(diags, "File too large", 1, "larger than 1 MiB") {
		t.Errorf("no size error: %v", diags)
	}

	// Files within the limit, but too many of them together.
	dir := t.TempDir()
	for i := range MaxLabBytes/MaxHCLFileBytes + 2 {
		src := "# " + strings.Repeat("x", MaxHCLFileBytes-100) + "\n"
		if i == 0 {
			src = limitsLab
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.hcl", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, diags = NewParser().Load(dir, Options{})
	if !hasDiag(diags, "Lab too large", 1, "more than 2 MiB together") || len(diags) != 1 {
		t.Errorf("no lab size error: %v", diags)
	}
}

// TestLoadInterrupted checks that a load whose context has ended stops
// with an error instead of decoding the rest.
func TestLoadInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, diags := NewParser().LoadContext(ctx, filepath.Join("testdata", "valid", "full"), Options{})
	if !hasDiag(diags, "Interrupted", 0, "") {
		t.Errorf("no interruption: %v", diags)
	}
}

// TestStringLimit: nested calls that grow a string exponentially stop at
// MaxStringBytes with an error at the call, before they take the memory.
func TestStringLimit(t *testing.T) {
	ten := `"` + strings.Repeat("a", 10) + `"`
	nest := func(open, close string, n int, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, c := range []struct{ name, value, detail string }{
		{"replace", nest("replace(", `, "a", `+ten+`)`, 12, ten), "more than the 16 MiB a function may make"},
		{"replace of nothing", `replace(` + nest("replace(", `, "a", `+ten+`)`, 6, ten) + `, "", "ab")`, "the result would be 30000002 bytes long"},
		{"jsonencode", nest("jsonencode(", ")", 40, `"\""`), "more than the 16 MiB a function may make"},
		{"sql_string", nest("sql_string(", ")", 40, `"'"`), "more than the 16 MiB a function may make"},
		{"join", `join(` + ten + `, [for i in range(1000) : ` + nest("replace(", `, "a", `+ten+`)`, 4, ten) + `])`, "more than the 16 MiB a function may make"},
		{"format width", `format("%999999999d", 1)`, "a width or precision of 999999999 is more than the 1000 format() takes"},
		{"format precision", `format("%.99999999999999999999f", 1)`, "more than the 1000 format() takes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			diags := loadSource(t, limitsLab+"table \"t\" {\n  description = "+c.value+"\n  key = [\"id\"]\n  column \"id\" {\n    type = \"bigint\"\n  }\n  store \"mysql\" {}\n}\n")
			if !hasDiag(diags, "Error in function call", 10, c.detail) && !hasDiag(diags, "Invalid function argument", 10, c.detail) {
				t.Errorf("no error at line 10 saying %q: %v", c.detail, diags)
			}
		})
	}
	if v, _, err := evalFunc(t, `format("%%999999999d %05d", 42)`, nil); err != "" || v.AsString() != "%999999999d 00042" {
		t.Errorf("a percent sign and a small width: %#v, %s", v, err)
	}
}
