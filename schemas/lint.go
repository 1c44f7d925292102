package schemas

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The lints find expectations that cannot fail, and experiments in which
// nothing can: an expect that passes whatever the lab does records no
// answer, yet reads as one in the record. Each is a warning (the lab
// still runs); Options.Lint asks for them, and they run only on a lab
// without errors, over the syntax trees the decoder kept (d.syntax).

// Summaries of the lints' warnings, one per shape.
const (
	lintRestatesWait = "Expectation restates its wait"
	lintOwnSample    = "Expectation compares the step with its own sample"
	lintNoExpect     = "Experiment without expectations"
	lintSanityOnly   = "Experiment only checks that steps returned something"
)

// keepSyntax keeps the syntax tree of a condition for the lints.
func (d *decoder) keepSyntax(x *Expr, e hcl.Expression) {
	if d.syntax == nil {
		d.syntax = map[*Expr]hcl.Expression{}
	}
	d.syntax[x] = e
}

// cond is the native syntax tree of a kept condition, or nil.
func (d *decoder) cond(x *Expr) hclsyntax.Expression {
	e, _ := d.syntax[x].(hclsyntax.Expression)
	return e
}

func (d *decoder) lint() {
	for _, e := range d.lab.Experiments {
		d.lintExperiment(e)
	}
}

func (d *decoder) lintExperiment(e *Experiment) {
	var steps []string // the steps with an expect
	sanity := true     // and every expect only checks for rows
	for _, s := range e.Steps {
		if len(s.Expects) > 0 {
			steps = append(steps, s.Name)
		}
		for _, x := range s.Expects {
			c := d.cond(&x.Condition)
			if c == nil {
				sanity = false
				continue
			}
			d.lintRestatesWait(s, x, c)
			d.lintOwnSample(s, x, c)
			sanity = sanity && sanityCheck(c)
		}
	}
	question := ""
	if e.Question != "" {
		question = fmt.Sprintf(" (%q)", e.Question)
	}
	switch {
	case len(steps) == 0:
		d.warnf(e.DeclRange, lintNoExpect, "Experiment %s has no expect, so nothing in it can fail: a run records what its steps returned, not an answer. Add an expect that measures its question%s, such as a value against one captured before the change, or one layer against another.", e.Name, question)
	case sanity:
		d.warnf(e.DeclRange, lintSanityOnly, "Every expect of experiment %s (%s %s) only checks that a step returned rows or messages, as length(result.rows) > 0 does: that shows the step found something, not the experiment's answer. Add an expect that measures its question%s, such as a value against one captured before the change, or one layer against another.", e.Name, stepWord(len(steps)), strings.Join(steps, ", "), question)
	}
}

// stepWord is "step" or "steps" before n names.
func stepWord(n int) string {
	if n == 1 {
		return "step"
	}
	return "steps"
}

// lintRestatesWait warns about an expect of a wait whose condition is the
// wait's until, or part of it: the wait succeeds only once until held, so
// the expect holds whenever the step does.
func (d *decoder) lintRestatesWait(s *Step, x *Expect, c hclsyntax.Expression) {
	if s.Wait == nil || s.Wait.Until == nil {
		return
	}
	until := d.cond(s.Wait.Until)
	if until == nil {
		return
	}
	have, want := d.conjunctSet(until), d.conjunctSet(c)
	for k := range want {
		if !have[k] {
			return
		}
	}
	how := "is the wait's own condition"
	if len(want) < len(have) {
		how = "is part of the wait's condition"
	}
	d.warnf(x.Condition.Range, lintRestatesWait, "Step %s re-runs %s until %s, and succeeds only when that held; this expect %s, so it cannot fail. Measure what the wait does not ensure: compare with a value captured before the change (step.NAME.VALUE), or with another layer.", s.Name, s.Wait.Rerun, oneLine(s.Wait.Until.Source), how)
}

// lintOwnSample warns about an expect that compares the step's result or
// samples with one of its own samples (samples[0], …): the series against
// itself, over the few seconds the step samples. A value that never goes
// back (end offsets, a row count) cannot fail such a comparison.
func (d *decoder) lintOwnSample(s *Step, x *Expect, c hclsyntax.Expression) {
	found := false
	hclsyntax.VisitAll(c, func(n hclsyntax.Node) hcl.Diagnostics {
		b, ok := n.(*hclsyntax.BinaryOpExpr)
		if !ok || found || !comparison(b.Op) {
			return nil
		}
		if ownSeries(b.LHS) && ownSeries(b.RHS) && (indexedSample(b.LHS) || indexedSample(b.RHS)) {
			found = true
		}
		return nil
	})
	if !found {
		return
	}
	over := "within its one run" // a step with sample = { … } that is no wait
	switch {
	case s.Wait != nil && s.Wait.Duration != "":
		over = "over the " + s.Wait.Duration + " it samples"
	case s.Wait != nil:
		over = "over the runs of its wait"
	}
	d.warnf(x.Condition.Range, lintOwnSample, "samples[…] are the runs of step %s itself, so this expect compares the step's series with itself %s: a value that never goes back, such as a topic's end offsets or a row count, cannot fail it. Compare with a value captured by a step before the change (capture = { … } there, step.NAME.VALUE here).", s.Name, over)
}

// ownSeries tells whether an operand reads only the step's own result and
// samples (not a constant, not a captured value).
func ownSeries(e hclsyntax.Expression) bool {
	vars := e.Variables()
	for _, tr := range vars {
		if r := tr.RootName(); r != "result" && r != "samples" {
			return false
		}
	}
	return len(vars) > 0
}

// indexedSample tells whether e reads one sample: samples[i]….
func indexedSample(e hclsyntax.Expression) bool {
	found := false
	hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		switch n := n.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			if n.Traversal.RootName() == "samples" && len(n.Traversal) > 1 {
				_, idx := n.Traversal[1].(hcl.TraverseIndex)
				found = found || idx
			}
		case *hclsyntax.IndexExpr:
			if t, ok := n.Collection.(*hclsyntax.ScopeTraversalExpr); ok && len(t.Traversal) == 1 && t.Traversal.RootName() == "samples" {
				found = true
			}
		}
		return nil
	})
	return found
}

// sanityCheck tells whether every part of a condition only checks that
// the step returned something: length(result.rows) > 0, a count of
// messages or rows >= 1, != 0.
func sanityCheck(c hclsyntax.Expression) bool {
	for _, k := range conjuncts(c) {
		b, ok := k.(*hclsyntax.BinaryOpExpr)
		if !ok {
			return false
		}
		l, r, op := unparen(b.LHS), unparen(b.RHS), b.Op
		if _, lit := l.(*hclsyntax.LiteralValueExpr); lit {
			l, r, op = r, l, flip(op)
		}
		n, ok := r.(*hclsyntax.LiteralValueExpr)
		if !ok || n.Val.Type() != cty.Number || !n.Val.IsKnown() || n.Val.IsNull() {
			return false
		}
		zero, one := n.Val.Equals(cty.Zero).True(), n.Val.Equals(cty.NumberIntVal(1)).True()
		if !(op == hclsyntax.OpGreaterThan && zero || op == hclsyntax.OpGreaterThanOrEqual && one || op == hclsyntax.OpNotEqual && zero) {
			return false
		}
		if !resultCount(l) {
			return false
		}
	}
	return true
}

// resultCount tells whether e counts the step's rows or messages:
// length(…result…), result.count, result.row_count or result.matched.
func resultCount(e hclsyntax.Expression) bool {
	switch e := e.(type) {
	case *hclsyntax.FunctionCallExpr:
		if e.Name != "length" || len(e.Args) != 1 {
			return false
		}
		for _, tr := range e.Args[0].Variables() {
			if tr.RootName() == "result" {
				return true
			}
		}
	case *hclsyntax.ScopeTraversalExpr:
		names := attrNames(e.Traversal)
		return e.Traversal.RootName() == "result" && len(e.Traversal) == 2 && len(names) == 1 &&
			(names[0] == "count" || names[0] == "row_count" || names[0] == "matched")
	}
	return false
}

// conjuncts splits a condition at its top-level &&.
func conjuncts(e hclsyntax.Expression) []hclsyntax.Expression {
	e = unparen(e)
	if b, ok := e.(*hclsyntax.BinaryOpExpr); ok && b.Op == hclsyntax.OpLogicalAnd {
		return append(conjuncts(b.LHS), conjuncts(b.RHS)...)
	}
	return []hclsyntax.Expression{e}
}

func unparen(e hclsyntax.Expression) hclsyntax.Expression {
	for {
		p, ok := e.(*hclsyntax.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expression
	}
}

func comparison(op *hclsyntax.Operation) bool {
	switch op {
	case hclsyntax.OpEqual, hclsyntax.OpNotEqual, hclsyntax.OpLessThan, hclsyntax.OpLessThanOrEqual,
		hclsyntax.OpGreaterThan, hclsyntax.OpGreaterThanOrEqual:
		return true
	}
	return false
}

// flip is the comparison with its operands swapped: a < b is b > a.
func flip(op *hclsyntax.Operation) *hclsyntax.Operation {
	switch op {
	case hclsyntax.OpLessThan:
		return hclsyntax.OpGreaterThan
	case hclsyntax.OpLessThanOrEqual:
		return hclsyntax.OpGreaterThanOrEqual
	case hclsyntax.OpGreaterThan:
		return hclsyntax.OpLessThan
	case hclsyntax.OpGreaterThanOrEqual:
		return hclsyntax.OpLessThanOrEqual
	}
	return op
}

var opText = map[*hclsyntax.Operation]string{
	hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=", hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
	hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
}

// conjunctSet are the keys of a condition's parts.
func (d *decoder) conjunctSet(e hclsyntax.Expression) map[string]bool {
	out := map[string]bool{}
	for _, k := range conjuncts(e) {
		out[d.conjunctKey(k)] = true
	}
	return out
}

// conjunctKey is a part of a condition as normalized text, the same for
// a == b and b == a, a < b and b > a.
func (d *decoder) conjunctKey(e hclsyntax.Expression) string {
	e = unparen(e)
	b, ok := e.(*hclsyntax.BinaryOpExpr)
	if !ok || !comparison(b.Op) {
		return d.norm(e)
	}
	l, r, op := d.norm(b.LHS), d.norm(b.RHS), b.Op
	if op == hclsyntax.OpLessThan || op == hclsyntax.OpLessThanOrEqual || (op == hclsyntax.OpEqual || op == hclsyntax.OpNotEqual) && l > r {
		l, r, op = r, l, flip(op)
	}
	return l + " " + opText[op] + " " + r
}

// norm is an expression's source as its tokens, without the spaces,
// newlines and comments between them.
func (d *decoder) norm(e hclsyntax.Expression) string {
	src := exprSource(d, e)
	toks, _ := hclsyntax.LexExpression([]byte(src), e.Range().Filename, e.Range().Start)
	var parts []string
	for _, t := range toks {
		switch t.Type {
		case hclsyntax.TokenNewline, hclsyntax.TokenComment, hclsyntax.TokenEOF:
			continue
		}
		parts = append(parts, string(t.Bytes))
	}
	return strings.Join(parts, " ")
}

// oneLine is text on one line, for a message.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
