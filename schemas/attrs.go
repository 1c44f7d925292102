package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// These helpers decode one attribute each, appending a diagnostic whose
// subject is the attribute's expression when the value is of the wrong
// kind. A nil attribute yields the zero value without complaint: required
// attributes are enforced by the body schemas.

func (d *decoder) value(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
	v, diags := a.Expr.Value(d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		d.errorf(a.Expr.Range(), "Incorrect attribute value type",
			"%s must be %s: %s.", a.Name, what, err)
		return cty.NilVal, false
	}
	if cv.IsNull() {
		d.errorf(a.Expr.Range(), "Null value", "%s must be %s, not null.", a.Name, what)
		return cty.NilVal, false
	}
	if !cv.IsWhollyKnown() {
		d.errorf(a.Expr.Range(), "Unknown value", "%s must be known when the lab is loaded.", a.Name)
		return cty.NilVal, false
	}
	if ty.IsCollectionType() {
		for it := cv.ElementIterator(); it.Next(); {
			if _, e := it.Element(); e.IsNull() {
				d.errorf(a.Expr.Range(), "Null value", "%s must be %s, without null elements.", a.Name, what)
				return cty.NilVal, false
			}
		}
	}
	if r, ok := controlChar(cv); ok {
		d.errorf(a.Expr.Range(), "Control character in text",
			"%s holds %s, a control character. Its text reaches the rendered files (SQL, lab.json, the runbook, configuration), which would hold it raw; only tabs and line breaks may be written.", a.Name, runeName(r))
		return cty.NilVal, false
	}
	return cv, true
}

// controlChar finds, in the strings of v (and its keys), a control
// character other than tab, line feed and carriage return: NUL and the
// like would be written raw into SQL, properties and Markdown files.
func controlChar(v cty.Value) (rune, bool) {
	if v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		for _, r := range v.AsString() {
			if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
				return r, true
			}
		}
	case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if ty.IsMapType() || ty.IsObjectType() {
				if r, ok := controlChar(k); ok {
					return r, true
				}
			}
			if r, ok := controlChar(e); ok {
				return r, true
			}
		}
	}
	return 0, false
}

// runeName names a character for messages: U+0000 (NUL).
func runeName(r rune) string {
	if r == 0 {
		return "U+0000 (NUL)"
	}
	return fmt.Sprintf("%U", r)
}

func (d *decoder) str(a *hcl.Attribute) string {
	if a == nil {
		return ""
	}
	v, ok := d.value(a, cty.String, "a string")
	if !ok {
		return ""
	}
	return v.AsString()
}

func (d *decoder) float(a *hcl.Attribute) float64 {
	if a == nil {
		return 0
	}
	v, ok := d.value(a, cty.Number, "a number")
	if !ok {
		return 0
	}
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) {
		d.errorf(a.Expr.Range(), "Invalid number", "%s must be a finite number, not %s.", a.Name, v.AsBigFloat().Text('g', 6))
		return 0
	}
	return f
}

func (d *decoder) integer(a *hcl.Attribute) int {
	if a == nil {
		return 0
	}
	v, ok := d.value(a, cty.Number, "a whole number")
	if !ok {
		return 0
	}
	f, _ := v.AsBigFloat().Float64()
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		d.errorf(a.Expr.Range(), "Invalid number", "%s must be a whole number, not %s.", a.Name, v.AsBigFloat().Text('g', -1))
		return 0
	}
	return int(f)
}

// positive decodes a whole number that must be at least min, defaulting to def.
func (d *decoder) atLeast(a *hcl.Attribute, min, def int) int {
	if a == nil {
		return def
	}
	before := len(d.diags)
	n := d.integer(a)
	if len(d.diags) > before { // already reported
		return def
	}
	if n < min {
		d.errorf(a.Expr.Range(), "Invalid number", "%s must be at least %d, not %d.", a.Name, min, n)
		return def
	}
	return n
}

func (d *decoder) boolean(a *hcl.Attribute, def bool) bool {
	if a == nil {
		return def
	}
	v, ok := d.value(a, cty.Bool, "true or false")
	if !ok {
		return def
	}
	return v.True()
}

func (d *decoder) strList(a *hcl.Attribute) []string {
	if a == nil {
		return nil
	}
	v, ok := d.value(a, cty.List(cty.String), "a list of strings")
	if !ok {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e.AsString())
	}
	return out
}

// duration decodes a duration string such as "10s", defaulting to def.
func (d *decoder) duration(a *hcl.Attribute, def string) string {
	return d.durationAtLeast(a, def, false)
}

// durationAtLeast is duration that also takes zero when zeroOK (a
// lateness of "0s" is the default written out).
func (d *decoder) durationAtLeast(a *hcl.Attribute, def string, zeroOK bool) string {
	if a == nil {
		return def
	}
	s := d.str(a)
	if s == "" {
		return def
	}
	if dur, err := time.ParseDuration(s); err != nil || dur < 0 || dur == 0 && !zeroOK {
		what := "a positive duration"
		if zeroOK {
			what = "a duration of 0 or more"
		}
		d.errorf(a.Expr.Range(), "Invalid duration", "%s must be %s such as \"10s\", \"5m\" or \"1h\", not %q.", a.Name, what, s)
		return def
	}
	return s
}

// oneOf decodes a string that must be one of the allowed values.
func (d *decoder) oneOf(a *hcl.Attribute, def string, allowed ...string) string {
	if a == nil {
		return def
	}
	before := len(d.diags)
	s := d.str(a)
	for _, x := range allowed {
		if s == x {
			return s
		}
	}
	if len(d.diags) == before { // not already reported as the wrong type
		d.errorf(a.Expr.Range(), "Invalid value", "%s must be one of %s, not %q.", a.Name, quoteList(allowed), s)
	}
	return def
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// ref decodes a reference such as table.orders, returning the name.
func (d *decoder) ref(expr hcl.Expression, kind string) (string, bool) {
	trav, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() || len(trav) != 2 || trav.RootName() != kind {
		d.errorf(expr.Range(), "Invalid reference", "A reference to a %s is required here, such as %s.example.", kind, kind)
		return "", false
	}
	step, ok := trav[1].(hcl.TraverseAttr)
	if !ok {
		d.errorf(expr.Range(), "Invalid reference", "A reference to a %s is required here, such as %s.example.", kind, kind)
		return "", false
	}
	return step.Name, true
}

// refList decodes a list of references of one kind.
func (d *decoder) refList(a *hcl.Attribute, kind string) ([]string, []hcl.Range) {
	if a == nil {
		return nil, nil
	}
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		d.errorf(a.Expr.Range(), "Invalid reference list", "%s must be a list of references such as [%s.example].", a.Name, kind)
		return nil, nil
	}
	var names []string
	var ranges []hcl.Range
	for _, e := range exprs {
		if n, ok := d.ref(e, kind); ok {
			names = append(names, n)
			ranges = append(ranges, e.Range())
		}
	}
	return names, ranges
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkName insists on lower_snake_case names: they become SQL identifiers,
// file names and HCL attribute names.
func (d *decoder) checkName(name string, rng hcl.Range, what string) bool {
	if !namePattern.MatchString(name) {
		d.errorf(rng, "Invalid name", "A %s name must start with a lowercase letter and contain only lowercase letters, digits and underscores (it becomes an identifier); %q does not.", what, name)
		return false
	}
	return true
}

// trimText removes the indentation heredocs leave behind and the outer
// blank lines, so prose reads the same however it was written.
func trimText(s string) string { return strings.TrimSpace(s) }

func jsonNumber(v cty.Value) json.Number {
	return json.Number(v.AsBigFloat().Text('g', -1))
}

// exprString decodes one expression (a map's key or value) as a string.
func (d *decoder) exprString(e hcl.Expression) (string, bool) {
	before := len(d.diags)
	s := d.str(&hcl.Attribute{Name: "replace", Expr: e, Range: e.Range()})
	return s, len(d.diags) == before
}
