package runner

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// emptyValue tells whether a captured value holds nothing: a blank
// string, or a list, set, tuple, map or object without elements. The
// steps that use it would run with nothing in its place (`IN ()`), so it
// counts as not captured, as null does.
func emptyValue(v cty.Value) bool {
	v, _ = v.Unmark()
	t := v.Type()
	switch {
	case t == cty.String:
		return strings.TrimSpace(v.AsString()) == ""
	case t.IsObjectType():
		return len(t.AttributeTypes()) == 0
	case t.IsListType() || t.IsSetType() || t.IsMapType() || t.IsTupleType():
		return v.LengthInt() == 0
	}
	return false
}

// resultSize says how much a step's result held, for a capture that
// found nothing ("" when the step counts nothing of the kind).
func resultSize(counts map[string]int64) string {
	if n, ok := counts["rows"]; ok {
		return fmt.Sprintf("the query returned %d %s", n, plural(n, "row", "rows"))
	}
	if n, ok := counts["messages"]; ok {
		return fmt.Sprintf("the read kept %d %s", n, plural(n, "message", "messages"))
	}
	return ""
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
