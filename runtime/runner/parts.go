package runner

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// conditionParts evaluates each conjunct of a condition (a && b && c)
// alone, with the values each comparison saw: a verdict then says which
// part a control turned false, on what values. HCL evaluates both sides
// of && anyway, so a part's error is the condition's too.
func conditionParts(x schemas.Expr, ctx *hcl.EvalContext) []record.Part {
	e, diags := x.Parse()
	if diags.HasErrors() {
		return nil
	}
	src := []byte(x.Source)
	var parts []record.Part
	for _, c := range conjuncts(e) {
		p := record.Part{Expr: string(c.Range().SliceBytes(src))}
		v, d := c.Value(ctx)
		switch {
		case d.HasErrors():
			p.Error = diagText(d)
		case v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool:
			p.Error = "not true or false"
		default:
			p.Held = v.True()
		}
		p.Values = operands(c, ctx)
		parts = append(parts, p)
	}
	return parts
}

// conjuncts flattens the top-level && of an expression.
func conjuncts(e hcl.Expression) []hclsyntax.Expression {
	switch x := e.(type) {
	case *hclsyntax.BinaryOpExpr:
		if x.Op == hclsyntax.OpLogicalAnd {
			return append(conjuncts(x.LHS), conjuncts(x.RHS)...)
		}
	case *hclsyntax.ParenthesesExpr:
		if inner := conjuncts(x.Expression); len(inner) > 1 {
			return inner
		}
	}
	if s, ok := e.(hclsyntax.Expression); ok {
		return []hclsyntax.Expression{s}
	}
	return nil
}

var comparisons = map[*hclsyntax.Operation]string{
	hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=",
	hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
	hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
}

// operands shows a comparison's two sides as evaluated ("3 == 0"); ""
// for anything else, or when a side cannot be evaluated.
func operands(e hclsyntax.Expression, ctx *hcl.EvalContext) string {
	for {
		p, ok := e.(*hclsyntax.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expression
	}
	b, ok := e.(*hclsyntax.BinaryOpExpr)
	if !ok {
		return ""
	}
	op, ok := comparisons[b.Op]
	if !ok {
		return ""
	}
	l, d1 := b.LHS.Value(ctx)
	r, d2 := b.RHS.Value(ctx)
	if d1.HasErrors() || d2.HasErrors() {
		return ""
	}
	return shortValue(l) + " " + op + " " + shortValue(r)
}

// shortValue is a value as a record shows it, cut to one short line.
func shortValue(v cty.Value) string {
	s := Display(v)
	if v.Type() == cty.String && !v.IsNull() && v.IsKnown() {
		s = `"` + s + `"`
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return s
}
