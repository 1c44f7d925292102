package schemas

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// timeValue evaluates a producer's value, a delay or an outcome. HCL's +
// and - take numbers only, so a sum or a difference is taken apart here:
// a time (now(), parent("c"), field("c")) plus or minus durations
// (duration("14d")) is that time with an offset, and durations add up.
// Anything else is evaluated as HCL does it.
func (d *decoder) timeValue(e hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if p, ok := e.(*hclsyntax.ParenthesesExpr); ok {
		return d.timeValue(p.Expression)
	}
	op, ok := e.(*hclsyntax.BinaryOpExpr)
	if !ok || (op.Op != hclsyntax.OpAdd && op.Op != hclsyntax.OpSubtract) {
		return e.Value(d.ctx)
	}
	l, diags := d.timeValue(op.LHS)
	r, rd := d.timeValue(op.RHS)
	diags = append(diags, rd...)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	kind := func(v cty.Value) string {
		switch {
		case v.IsNull() || !v.IsKnown():
			return "null" // (true ? null : duration("1d")) + now()
		case v.Type() == durationType:
			return "duration"
		case v.Type() == distType:
			switch v.EncapsulatedValue().(*Dist).Kind {
			case DistNow, DistParent, DistField:
				return "time"
			}
			return "distribution"
		case v.Type() == cty.Number:
			return "number"
		}
		return v.Type().FriendlyName()
	}
	lk, rk := kind(l), kind(r)
	if lk != "time" && lk != "duration" && rk != "time" && rk != "duration" {
		// Numbers, or HCL's own message; of the operands' values, so
		// that a long chain of sums is evaluated once.
		return (&hclsyntax.BinaryOpExpr{
			LHS:      &hclsyntax.LiteralValueExpr{Val: l, SrcRange: op.LHS.Range()},
			Op:       op.Op,
			RHS:      &hclsyntax.LiteralValueExpr{Val: r, SrcRange: op.RHS.Range()},
			SrcRange: op.SrcRange,
		}).Value(d.ctx)
	}
	sign := time.Duration(1)
	if op.Op == hclsyntax.OpSubtract {
		sign = -1
	}
	fail := func(summary, detail string, args ...any) (cty.Value, hcl.Diagnostics) {
		rng := e.Range()
		return cty.DynamicVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &rng}}
	}
	switch {
	case lk == "duration" && rk == "duration":
		return durationVal(*l.EncapsulatedValue().(*time.Duration) + sign**r.EncapsulatedValue().(*time.Duration)), nil
	case lk == "time" && rk == "duration":
		x := *l.EncapsulatedValue().(*Dist)
		x.Offset += sign * *r.EncapsulatedValue().(*time.Duration)
		return distVal(x), nil
	case lk == "duration" && rk == "time" && sign > 0:
		x := *r.EncapsulatedValue().(*Dist)
		x.Offset += *l.EncapsulatedValue().(*time.Duration)
		return distVal(x), nil
	case lk == "time" && rk == "time":
		return fail("Two times combined", "A time plus or minus a time has no meaning here; add a duration to one time, as in now() + duration(\"14d\").")
	case lk == "duration" && rk == "time":
		return fail("A duration minus a time", "Subtract the duration from the time instead: now() - duration(\"1h\").")
	case lk == "time" || rk == "time":
		other := rk
		if rk == "time" {
			other = lk
		}
		if other == "number" {
			return fail("A time plus a number", "A number has no unit; add a duration such as duration(\"40s\") or duration(\"14d\") to a time.")
		}
		return fail("A time plus a "+other, "Only a duration such as duration(\"14d\") can be added to or subtracted from a time.")
	}
	other := lk
	if lk == "duration" {
		other = rk
	}
	return fail("A duration plus a "+other, "A duration is added to a time: now(), parent(\"c\") or field(\"c\"), as in now() + duration(\"14d\").")
}
