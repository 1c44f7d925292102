package runner

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/schemas"
)

// capRef is a reference to a captured value.
type capRef struct {
	Exp, Step, Name string
	// Text is how the lab wrote it: step.pick.order_id or
	// experiment.trace.pick.order_id.
	Text string
}

// refsOf lists the captured values an expression refers to.
func refsOf(src, exp string) []capRef {
	if src == "" {
		return nil
	}
	expr, diags := hclsyntax.ParseExpression([]byte(source(src)), "lab.json", hcl.InitialPos)
	if diags.HasErrors() {
		return nil
	}
	var out []capRef
	for _, tr := range expr.Variables() {
		attr := func(i int) string {
			if i < len(tr) {
				if a, ok := tr[i].(hcl.TraverseAttr); ok {
					return a.Name
				}
				if ix, ok := tr[i].(hcl.TraverseIndex); ok && ix.Key.Type().FriendlyName() == "string" {
					return ix.Key.AsString()
				}
			}
			return ""
		}
		switch tr.RootName() {
		case "step":
			if s, n := attr(1), attr(2); s != "" && n != "" {
				out = append(out, capRef{Exp: exp, Step: s, Name: n, Text: fmt.Sprintf("step.%s.%s", s, n)})
			}
		case "experiment":
			if e, s, n := attr(1), attr(2), attr(3); e != "" && s != "" && n != "" {
				out = append(out, capRef{Exp: e, Step: s, Name: n, Text: fmt.Sprintf("experiment.%s.%s.%s", e, s, n)})
			}
		}
	}
	return out
}

// inputRefs are the captured values a step needs to run at all: those in
// its SQL or Kafka key, and for a wait, those of the step it re-runs.
// (Captures and expectations that need a missing value fail on their own,
// without stopping the step.)
func inputRefs(e *schemas.Experiment, s *schemas.Step) []capRef {
	var out []capRef
	switch {
	case s.Query != nil:
		out = append(out, refsOf(s.Query.SQL.Source, e.Name)...)
	case s.Kafka != nil && s.Kafka.Key != nil:
		out = append(out, refsOf(s.Kafka.Key.Source, e.Name)...)
	case s.Wait != nil && s.Wait.Rerun != "":
		if t := e.Step(s.Wait.Rerun); t != nil && t != s {
			out = append(out, inputRefs(e, t)...)
		}
		if s.Wait.Until != nil {
			out = append(out, refsOf(s.Wait.Until.Source, e.Name)...)
		}
	}
	return out
}

// source is an expression's source made parseable: a heredoc (<<-SQL …
// SQL) needs a newline after its closing marker, which the source text
// kept in lab.json lacks.
func source(src string) string {
	if strings.HasPrefix(strings.TrimSpace(src), "<<") && !strings.HasSuffix(src, "\n") {
		return src + "\n"
	}
	return src
}

// eval evaluates a run-time expression (see source).
func eval(x schemas.Expr, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	x.Source = source(x.Source)
	return x.Eval(ctx)
}
