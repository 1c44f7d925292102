package schemas

import "github.com/hashicorp/hcl/v2"

// SQLSource maps byte offsets of a SQL text the model holds (a job's
// query, a preset's SQL, a query step's SQL) back to the lab's own
// source, so that what an engine says of the text can be reported where
// the user wrote it. A nil SQLSource maps nothing.
type SQLSource struct{ s *sqlSource }

// Range is the source range of text[pos:end]; where the text could not be
// found verbatim it is the attribute's whole expression.
func (s *SQLSource) Range(pos, end int) (hcl.Range, bool) {
	if s == nil || s.s == nil {
		return hcl.Range{}, false
	}
	return s.s.rng(pos, end), true
}

// SQLSourceAt locates text inside rng (an expression of a file this
// parser read), as Load does for queries and presets: for a query step's
// SQL, whose model keeps only the expression's range.
func (p *Parser) SQLSourceAt(rng hcl.Range, text string) *SQLSource {
	d := &decoder{parser: p}
	return &SQLSource{d.sqlSourceOf(&hcl.Attribute{Expr: exprAt(rng)}, text)}
}
