package record

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Identifiers are values that name a row (an order's ID, a Kafka key), not
// quantities: which order a step followed depends on when it ran, so an
// identifier is neither charted nor compared between records. One rule
// for the Markdown record, record diff and the published pages:
//
//   - its name is id or ends in _id or " id" (or is their plural), or is
//     key or ends in _key (a Kafka message's key);
//   - or its expression reads such a column (result.rows[0].order_id);
//   - or its values are those of such a column in the step's own result
//     tables (a sample or capture named otherwise that reads a key).

// IsIdentifierName tells whether a column, capture or series name names an
// identifier. A series' name has parts ("records_out / vertex 1"); any
// part that is an identifier makes it one.
func IsIdentifierName(name string) bool {
	for _, part := range strings.Split(name, " / ") {
		n := strings.ToLower(strings.TrimSpace(part))
		n = strings.TrimSuffix(n, "s")
		switch {
		case n == "id", n == "key",
			strings.HasSuffix(n, "_id"), strings.HasSuffix(n, " id"),
			strings.HasSuffix(n, "_key"):
			return true
		}
	}
	return false
}

// lastAttr is the last attribute an expression reads (r.order_id in
// tostring(r.order_id)); an expression's value is that attribute's.
var lastAttr = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)[^.]*$`)

// readsIdentifier tells whether an expression's value is an identifier
// column's: the last attribute it reads is one.
func readsIdentifier(expr string) bool {
	m := lastAttr.FindStringSubmatch(strings.TrimSpace(expr))
	return m != nil && IsIdentifierName(m[1])
}

// keyValues are the values of the identifier columns of a step's tables,
// as text, with the fields of a JSON key ({"order_id":489} gives 489).
func (s *Step) keyValues() map[string]bool {
	if s.Output == nil {
		return nil
	}
	var vals map[string]bool
	add := func(v string) {
		if v == "" || v == "NULL" {
			return
		}
		if vals == nil {
			vals = map[string]bool{}
		}
		vals[v] = true
	}
	for _, t := range s.Output.Tables {
		for c, col := range t.Columns {
			if !IsIdentifierName(col) {
				continue
			}
			for r, row := range t.Rows {
				if c >= len(row) || t.IsNull(r, c) {
					continue
				}
				add(row[c])
				var obj map[string]any
				if json.Unmarshal([]byte(row[c]), &obj) == nil {
					for _, v := range obj {
						b, _ := json.Marshal(v)
						add(strings.Trim(string(b), `"`))
					}
				}
			}
		}
	}
	return vals
}

// IdentifierCapture tells whether a capture of step s holds an
// identifier: by its name, the column its expression reads, or its value
// being one of the step's key values.
func (s *Step) IdentifierCapture(c Capture) bool {
	if IsIdentifierName(c.Name) || readsIdentifier(c.Expr) {
		return true
	}
	if c.Error != "" || c.Display == "" {
		return false
	}
	return s.keyValues()[c.Display]
}

// IdentifierSeries tells whether a sampled series of step s holds an
// identifier: by its name, or every value of it being one of the step's
// key values (its result table is the last run's, so a series is judged
// by the values that table shows).
func (s *Step) IdentifierSeries(x Series) bool {
	if IsIdentifierName(x.Name) {
		return true
	}
	keys := s.keyValues()
	if len(keys) == 0 {
		return false
	}
	seen := 0
	for _, p := range x.Points {
		if p.Num == nil && p.Text == nil {
			continue
		}
		if !keys[p.ValueText()] {
			return false
		}
		seen++
	}
	return seen > 0
}
