package schemas

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// measureDetail decodes a measure's samples, window or resolution: an
// expression over captures, kept for the run and evaluated like the
// value, or a static value checked now.
func (d *decoder) measureDetail(a *hcl.Attribute) *Expr {
	if a == nil {
		return nil
	}
	for _, tr := range a.Expr.Variables() {
		switch tr.RootName() {
		case "step", "experiment", "result", "samples":
			x := d.expr(a, cty.DynamicPseudoType, false)
			return &x
		}
	}
	v, diags := a.Expr.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	var err error
	var text string
	if a.Name == "samples" {
		var n int64
		n, err = MeasureCount(v)
		text = strconv.FormatInt(n, 10)
	} else {
		_, err = MeasureSpan(v, a.Name == "resolution")
		text = displayValue(v)
	}
	if err != nil {
		d.errorf(a.Expr.Range(), "Invalid "+a.Name, "%s %s.", a.Name, err)
		return nil
	}
	return &Expr{Text: text, Range: a.Expr.Range()}
}

// MeasureCount is a measure's samples as evaluated: a whole number of at
// least 0 (a number, or a string that is one).
func MeasureCount(v cty.Value) (int64, error) {
	if v.IsNull() || !v.IsWhollyKnown() {
		return 0, fmt.Errorf("must be a whole number of at least 0, not null")
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number of at least 0, not %s", v.Type().FriendlyName())
	}
	f, _ := n.AsBigFloat().Float64()
	if f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return 0, fmt.Errorf("must be a whole number of at least 0, not %s", n.AsBigFloat().Text('g', -1))
	}
	return int64(f), nil
}

// MeasureSpan is a measure's window or resolution as evaluated, in
// seconds: a duration written as a string ("30s", "1ms") or a number of
// seconds; at least 0, and more than 0 when positive is set.
func MeasureSpan(v cty.Value, positive bool) (float64, error) {
	what := "a duration such as \"30s\" or a number of seconds"
	if v.IsNull() || !v.IsWhollyKnown() {
		return 0, fmt.Errorf("must be %s, not null", what)
	}
	var s float64
	switch {
	case v.Type() == cty.String:
		if d, err := time.ParseDuration(v.AsString()); err == nil {
			s = d.Seconds()
			break
		}
		f, err := strconv.ParseFloat(v.AsString(), 64)
		if err != nil {
			return 0, fmt.Errorf("must be %s, not %q", what, v.AsString())
		}
		s = f
	case v.Type() == cty.Number:
		s, _ = v.AsBigFloat().Float64()
	default:
		return 0, fmt.Errorf("must be %s, not %s", what, v.Type().FriendlyName())
	}
	switch {
	case math.IsInf(s, 0) || math.IsNaN(s):
		return 0, fmt.Errorf("must be a finite duration")
	case positive && s <= 0:
		return 0, fmt.Errorf("must be more than 0, not %s", strconv.FormatFloat(s, 'g', -1, 64))
	case s < 0:
		return 0, fmt.Errorf("must be at least 0, not %s", strconv.FormatFloat(s, 'g', -1, 64))
	}
	return s, nil
}
