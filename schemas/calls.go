package schemas

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty/function"
)

// checkCalls reports the function calls in a run-time expression that
// would fail when a run evaluates it: a function the run's context does
// not define, or one given a number of arguments it cannot take. The
// loader does not evaluate such an expression, so without this a typo
// shows only minutes into `labgen run`.
//
// loaded tells that the loader has evaluated the expression as well (a
// capture, sample, condition or until without run-time references, which
// a run evaluates again): HCL then reported unknown functions and wrong
// argument counts already, and only what a run lacks (file) is left.
func (d *decoder) checkCalls(e hcl.Expression, loaded bool) {
	x, ok := e.(hclsyntax.Expression)
	if !ok {
		return
	}
	fns := runFunctions()
	hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		call, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok {
			return nil
		}
		f, known := fns[call.Name]
		_, atLoad := d.ctx.Functions[call.Name]
		switch {
		case !known && atLoad:
			d.errorf(call.NameRange, "Function not available at run time",
				"%s() works only in what the loader evaluates (it reads the lab directory); this expression is evaluated during a run, where there is no %s().", call.Name, call.Name)
		case loaded:
		case !known:
			d.errorf(call.NameRange, "Call to unknown function",
				"There is no function named %q, so this expression would fail when a run evaluates it.%s", call.Name, didYouMean(call.Name, slices.Sorted(maps.Keys(fns))))
		default:
			d.checkArgCount(call, f)
		}
		return nil
	})
}

// checkArgCount reports a call with more or fewer arguments than its
// function takes. An expanding last argument, f(list...), stands for any
// number, so only the arguments before it count, and only as a minimum.
func (d *decoder) checkArgCount(call *hclsyntax.FunctionCallExpr, f function.Function) {
	params, varParam := f.Params(), f.VarParam()
	n := len(call.Args)
	passes := fmt.Sprint(n)
	if call.ExpandFinal {
		n--
		passes = fmt.Sprintf("%d and a list", n)
	}
	switch {
	case n > len(params) && varParam == nil:
		d.errorf(call.Range(), "Too many function arguments", "%s takes %s; this call passes %s.", signature(call.Name, f), arguments(len(params)), passes)
	case n < len(params) && !call.ExpandFinal:
		least := ""
		if varParam != nil {
			least = "at least "
		}
		d.errorf(call.Range(), "Not enough function arguments", "%s takes %s%s; this call passes %s.", signature(call.Name, f), least, arguments(len(params)), passes)
	}
}

// signature is how a function is called, as in normal(mean, stddev, options...).
func signature(name string, f function.Function) string {
	var ps []string
	for _, p := range f.Params() {
		ps = append(ps, p.Name)
	}
	if vp := f.VarParam(); vp != nil {
		ps = append(ps, vp.Name+"...")
	}
	return name + "(" + strings.Join(ps, ", ") + ")"
}

func arguments(n int) string {
	switch n {
	case 0:
		return "no arguments"
	case 1:
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
