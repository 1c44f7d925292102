package schemas

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/labgen/labgen/flinksql"
	"github.com/zclconf/go-cty/cty"
)

// capturesNumber tells whether a step's capture is known, when the lab is
// loaded, to be a number: result.rows[N].COLUMN of a query (or of the
// query a wait re-runs) whose single SELECT yields COLUMN from a numeric
// column of a lab table, a number literal or a CAST to a number. A run
// reads such a column as a number, so jsonencode writes it unquoted; the
// runbook's placeholder for it must be unquoted too. Anything less plain
// is not known and stays a string.
func (d *decoder) capturesNumber(e *Experiment, step, name string) bool {
	if e == nil {
		return false
	}
	s := e.Step(step)
	if s == nil {
		return false
	}
	column := ""
	for _, c := range s.Captures {
		if c.Name == name {
			column = rowColumn(c.Expr.Source)
		}
	}
	if s.Kind == StepWait && s.Wait != nil && s.Wait.Rerun != "" {
		s = e.Step(s.Wait.Rerun)
	}
	if column == "" || s == nil || s.Kind != StepQuery || s.Query == nil {
		return false
	}
	toks := flinksql.Lex(s.Query.SQL.Text)
	selects := 0
	for _, t := range toks {
		if t.Is("SELECT") {
			selects++
		}
	}
	// As for a job's output types: a subquery or a WITH may give a name
	// another type.
	if selects != 1 {
		return false
	}
	items, _, ok := flinksql.SelectList(toks)
	if !ok {
		return false
	}
	columns := map[string][]LogicalType{}
	for _, ref := range flinksql.TableRefs(toks) {
		for _, t := range d.lab.Tables {
			if t.placedAs(ref.Name()) {
				for _, c := range t.Columns {
					columns[c.Name] = append(columns[c.Name], c.Type)
				}
			}
		}
	}
	for _, it := range items {
		if it.Name == column {
			t, _, ok := itemType(toks, it, columns)
			return ok && t.family == "number"
		}
	}
	return false
}

// placedAs tells whether a query's table name n names t: its own name or
// one of its stores'.
func (t *Table) placedAs(n string) bool {
	if strings.EqualFold(t.Name, n) {
		return true
	}
	for _, s := range t.Stores {
		if strings.EqualFold(s.Name, n) {
			return true
		}
	}
	return false
}

// rowColumn is COLUMN of a capture written result.rows[N].COLUMN or
// result.rows[N]["COLUMN"], or "".
func rowColumn(src string) string {
	x, diags := hclsyntax.ParseExpression([]byte(src), "", hcl.InitialPos)
	st, ok := x.(*hclsyntax.ScopeTraversalExpr)
	if diags.HasErrors() || !ok || len(st.Traversal) != 4 || st.Traversal.RootName() != "result" {
		return ""
	}
	tr := st.Traversal
	if a, ok := tr[1].(hcl.TraverseAttr); !ok || a.Name != "rows" {
		return ""
	}
	if _, ok := tr[2].(hcl.TraverseIndex); !ok {
		return ""
	}
	switch last := tr[3].(type) {
	case hcl.TraverseAttr:
		return last.Name
	case hcl.TraverseIndex:
		if last.Key.Type() == cty.String && !last.Key.IsNull() {
			return last.Key.AsString()
		}
	}
	return ""
}
