package schemas

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/flinksql"
)

// The lints find expectations that cannot fail, and experiments in which
// nothing can: an expect that passes whatever the lab does records no
// answer, yet reads as one in the record. Each is a warning (the lab
// still runs); Options.Lint asks for them, and they run only on a lab
// without errors, over the syntax trees the decoder kept (d.syntax).

// Summaries of the lints' warnings, one per shape.
const (
	lintRestatesWait  = "Expectation restates its wait"
	lintOwnSample     = "Expectation compares the step with its own sample"
	lintFinalDistinct = "Count and distinct count are equal under FINAL"
	lintNoExpect      = "Experiment without expectations"
	lintSanityOnly    = "Experiment only checks that steps returned something"
	lintTryFalse      = "Condition reads an error as not held"
	lintSanityClaims  = "Sanity check claims a measurement"
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
			d.lintSanityClaims(s, x)
			c := d.cond(&x.Condition)
			if c == nil {
				sanity = false
				continue
			}
			d.lintRestatesWait(s, x, c)
			d.lintOwnSample(s, x, c)
			d.lintFinalDistinct(e, s, x, c)
			d.lintTryFalse(s, c)
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

// lintTryFalse warns about try(…, false) anywhere in a condition: it
// turns an error (an index into an empty list, a missing attribute) into
// "not held", so a result that is empty or broken reads in the record as
// a measured no, and under a control as a detection.
func (d *decoder) lintTryFalse(s *Step, c hclsyntax.Expression) {
	hclsyntax.VisitAll(c, func(n hclsyntax.Node) hcl.Diagnostics {
		f, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok || f.Name != "try" || len(f.Args) == 0 {
			return nil
		}
		l, ok := unparen(f.Args[len(f.Args)-1]).(*hclsyntax.LiteralValueExpr)
		if !ok || !l.Val.RawEquals(cty.False) {
			return nil
		}
		d.warnf(f.Range(), lintTryFalse, "In step %s, try(…, false) turns an error evaluating the condition, such as an index into an empty list or a missing attribute, into false: the record then says \"not held\" where nothing was measured, which reads as the pipeline failing the check, and under a control as the control detected. Guard what may be missing in the condition itself (length(xs) > 0 && …), or leave try out so that an error is recorded as the expectation not checked, with the error.", s.Name)
		return nil
	})
}

// lintSanityClaims warns about a sanity check (sanity = "…": no control
// applies, it checks the lab) whose message begins "Measured": it claims
// a measurement of the pipeline that no control ever tested.
func (d *decoder) lintSanityClaims(s *Step, x *Expect) {
	if x.Sanity == "" || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(x.Message)), "measured") {
		return
	}
	at := x.MessageRange
	if at.Empty() {
		at = x.DeclRange
	}
	d.warnf(at, lintSanityClaims, "This expect of step %s is a sanity check (sanity = \"…\"): it checks the lab, not the pipeline, and no control shows it able to fail, yet its message begins \"Measured\", which the record reads as a measurement. Say what it checks (\"Checked: …\"), or, if it does measure the pipeline, name the controls it detects (detects = [control.NAME]) instead of sanity.", s.Name)
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

// lintFinalDistinct warns about an expect that compares count() with a
// distinct count of the key, on a ClickHouse query that reads its table
// with FINAL: FINAL keeps one row per key of a ReplacingMergeTree, so
// the two are equal whatever was ingested. The expect may be the query
// step's or a wait's that re-runs it.
func (d *decoder) lintFinalDistinct(e *Experiment, s *Step, x *Expect, c hclsyntax.Expression) {
	q := s
	if s.Wait != nil && s.Wait.Rerun != "" {
		q = e.Step(s.Wait.Rerun)
	}
	if q == nil || q.Query == nil {
		return
	}
	f := d.finalDistinct(q.Query)
	if f == nil {
		return
	}
	names := resultNames(c)
	if !names[f.count] || !names[f.distinct] {
		return
	}
	detail := fmt.Sprintf("Step %s reads %s with FINAL, which keeps one row per key (%s), so %s (count()) always equals %s (%s): an expect that compares them, directly or through a common value, cannot find a duplicate row. To see whether a key arrived more than once, count its rows without FINAL (every version ClickHouse received, before merges); to measure completeness, compare the distinct count with another layer, such as the source.", q.Name, f.table, strings.Join(f.key, ", "), f.count, f.distinct, f.distinctText)
	// With a wait, what is left once count() is set aside may be the
	// wait's own condition: then none of the expect can fail.
	if s.Wait != nil && s.Wait.Until != nil {
		if until := d.cond(s.Wait.Until); until != nil {
			have := d.conjunctSet(until)
			rest := 0
			for _, k := range conjuncts(c) {
				if resultNames(k)[f.count] {
					continue
				}
				if !have[d.conjunctKey(k)] {
					rest = -1
					break
				}
				rest++
			}
			if rest > 0 {
				detail += fmt.Sprintf(" The rest of the expect is the wait's condition (%s), so none of it can fail.", oneLine(s.Wait.Until.Source))
			}
		}
	}
	d.warnf(x.Condition.Range, lintFinalDistinct, "%s", detail)
}

// finalDistinctQuery is what lintFinalDistinct knows of a query: it reads
// one table with FINAL, and names its count() and its distinct count of
// the table's key.
type finalDistinctQuery struct {
	table, count, distinct, distinctText string
	key                                  []string
}

// finalDistinct reads a ClickHouse query step's SQL: one table, read with
// FINAL, a ClickHouse store of the lab, and output columns count() and
// uniqExact(KEY) or count(DISTINCT KEY). Anything else is nil, so that
// the lint stays silent rather than wrong.
func (d *decoder) finalDistinct(q *QueryStep) *finalDistinctQuery {
	if q.Engine != EngineClickHouse || q.SQL.Text == "" {
		return nil
	}
	sql := capturedValue.ReplaceAllString(q.SQL.Text, "0")
	toks := flinksql.Lex(sql)
	refs := flinksql.TableRefs(toks)
	if len(refs) != 1 || !readWithFinal(toks, refs[0]) {
		return nil
	}
	t := d.clickHouseTable(refs[0])
	if t == nil {
		return nil
	}
	items, _, ok := flinksql.SelectList(toks)
	if !ok {
		return nil
	}
	f := &finalDistinctQuery{table: strings.Join(refs[0].Parts, "."), key: t.Key}
	for _, it := range items {
		if it.Name == "" {
			continue
		}
		var call []flinksql.Token
		for _, tk := range toks {
			if tk.Pos >= it.Pos && tk.End <= it.End && tk.Pos < it.NamePos {
				call = append(call, tk)
			}
		}
		if len(call) > 0 && call[len(call)-1].Is("AS") {
			call = call[:len(call)-1]
		}
		fn, args, ok := callOf(call)
		distinct := len(call) > 2 && call[2].Is("DISTINCT")
		switch {
		case !ok:
		case f.count == "" && strings.EqualFold(fn, "count") && !distinct && countsRows(args, t.Key):
			f.count = it.Name
		case f.distinct == "" && sameSet(t.Key, args) && (strings.EqualFold(fn, "uniqExact") || strings.EqualFold(fn, "count") && distinct):
			f.distinct = it.Name
			f.distinctText = sql[call[0].Pos:call[len(call)-1].End]
		}
	}
	if f.count == "" || f.distinct == "" {
		return nil
	}
	return f
}

// capturedValue is a captured value in the text of SQL that needs one:
// placeholderText's <order_id from step pick>, or templateText's ${…}.
// Read as words, "from step pick" would be a table.
var capturedValue = regexp.MustCompile(`<[^<>]* from (step|experiment) [^<>]*>|\$\{[^{}]*\}`)

// readWithFinal tells whether the table ref is followed by FINAL, after
// an alias if any (FROM t FINAL, FROM t AS x FINAL, FROM t x FINAL).
func readWithFinal(toks []flinksql.Token, r flinksql.TableRef) bool {
	i := slices.IndexFunc(toks, func(t flinksql.Token) bool { return t.End == r.End })
	if i < 0 {
		return false
	}
	i++
	if i < len(toks) && toks[i].Is("AS") {
		i++
	}
	if i < len(toks) && toks[i].Ident() && !toks[i].Is("FINAL") && !clauseStart(toks[i]) {
		i++
	}
	return i < len(toks) && toks[i].Is("FINAL")
}

// clauseStart tells whether a word after a table is no alias of it.
func clauseStart(t flinksql.Token) bool {
	for _, w := range []string{"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "JOIN", "LEFT", "INNER", "SETTINGS", "PREWHERE", "SAMPLE", "ARRAY"} {
		if t.Is(w) {
			return true
		}
	}
	return false
}

// clickHouseTable is the lab's table whose ClickHouse store r names.
func (d *decoder) clickHouseTable(r flinksql.TableRef) *Table {
	for _, t := range d.lab.Tables {
		s := t.Store(StoreClickHouse)
		if s == nil || s.Name != r.Name() {
			continue
		}
		if len(r.Parts) == 1 || len(r.Parts) == 2 && r.Parts[0] == s.Database {
			return t
		}
	}
	return nil
}

// callOf reads tokens as one call fn(arg, …) and nothing else; an
// argument is a column (the last part of t.col), * or a number, and a
// leading DISTINCT is skipped.
func callOf(ts []flinksql.Token) (fn string, args []string, ok bool) {
	if len(ts) < 3 || ts[0].Kind != flinksql.Word || ts[1].Text != "(" || ts[len(ts)-1].Text != ")" {
		return "", nil, false
	}
	inner := ts[2 : len(ts)-1]
	if len(inner) > 0 && inner[0].Is("DISTINCT") {
		inner = inner[1:]
	}
	var cur string
	for i, t := range inner {
		switch {
		case t.Kind == flinksql.Symbol && t.Text == ",":
			if cur == "" {
				return "", nil, false
			}
			args, cur = append(args, cur), ""
		case t.Kind == flinksql.Symbol && t.Text == ".":
			if cur == "" || i+1 == len(inner) {
				return "", nil, false
			}
			cur = "" // t.col: the column is the part after the dot
		case t.Ident() || t.Kind == flinksql.Number || t.Text == "*":
			if cur != "" {
				return "", nil, false
			}
			cur = t.Text
		default:
			return "", nil, false
		}
	}
	if cur != "" {
		args = append(args, cur)
	} else if len(inner) > 0 {
		return "", nil, false
	}
	return ts[0].Text, args, true
}

// countsRows tells whether count(args) counts every row: count(),
// count(*), count(1), or count(KEY), whose columns are never null.
func countsRows(args, key []string) bool {
	return len(args) == 0 || len(args) == 1 && (args[0] == "*" || args[0] == "1") || slices.Equal(args, key)
}

// sameSet tells whether a and b hold the same names, in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// resultNames are the attribute names an expression reads from the
// step's result, directly (result.rows[0].n) or through the variable of
// a for expression over it (r.n); captured values, variables and samples
// are left out, since their names are not the query's columns.
func resultNames(e hclsyntax.Expression) map[string]bool {
	out := map[string]bool{}
	add := func(tr hcl.Traversal) {
		for _, t := range tr {
			if a, ok := t.(hcl.TraverseAttr); ok {
				out[a.Name] = true
			}
		}
	}
	hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		switch n := n.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			switch n.Traversal.RootName() {
			case "step", "experiment", "var", "samples":
			default:
				add(n.Traversal[1:])
			}
		case *hclsyntax.RelativeTraversalExpr:
			add(n.Traversal)
		}
		return nil
	})
	return out
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
	return tokenText(toks)
}

// tokenText is an expression's tokens joined by one space, without the
// newlines and comments between them: its text as its meaning goes.
func tokenText(toks hclsyntax.Tokens) string {
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
