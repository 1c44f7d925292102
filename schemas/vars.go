package schemas

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "default"},
		{Name: "description"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message", Required: true},
	},
}

type variableDecl struct {
	v           *Variable
	ty          cty.Type
	val         cty.Value
	valRange    *hcl.Range
	validations []*hcl.Block
	// badDefault is set when the default was reported as invalid, so
	// that the variable is not also reported as lacking one.
	badDefault bool
}

// decodeVariables declares the variables and resolves their values with
// Terraform's precedence: default, then LABGEN_VAR_<name> from the
// environment, then -var and -var-file in command-line order.
func (d *decoder) decodeVariables(blocks []*hcl.Block, opts Options, p *Parser) map[string]cty.Value {
	decls := map[string]*variableDecl{}
	var order []string
	for _, b := range blocks {
		name := b.Labels[0]
		if !d.checkName(name, b.LabelRanges[0], "variable") {
			continue
		}
		if prev, ok := decls[name]; ok {
			d.errorf(b.LabelRanges[0], "Duplicate variable", "A variable named %q was already declared at %s.", name, prev.v.DeclRange)
			continue
		}
		content, diags := b.Body.Content(variableSchema)
		d.diags = append(d.diags, diags...)
		decl := &variableDecl{v: &Variable{Name: name, DeclRange: b.DefRange}, ty: cty.DynamicPseudoType}
		if a := content.Attributes["type"]; a != nil {
			ty, diags := typeexpr.TypeConstraint(a.Expr)
			d.diags = append(d.diags, diags...)
			if !diags.HasErrors() {
				decl.ty = ty
			}
		}
		decl.v.Description = trimText(d.constStr(content.Attributes["description"]))
		if a := content.Attributes["default"]; a != nil {
			v, diags := a.Expr.Value(nil)
			d.diags = append(d.diags, diags...)
			decl.badDefault = diags.HasErrors()
			if !diags.HasErrors() {
				cv, err := convert.Convert(v, decl.ty)
				if err != nil {
					d.errorf(a.Expr.Range(), "Invalid default value for variable", "This default value is not compatible with the variable's type constraint: %s.", err)
					decl.badDefault = true
				} else {
					decl.val, decl.v.Source = cv, "default"
					r := a.Expr.Range()
					decl.valRange = &r
				}
			}
		}
		decl.validations = content.Blocks
		decls[name] = decl
		order = append(order, name)
	}

	set := func(name, source string, raw cty.Value, rng *hcl.Range) {
		decl, ok := decls[name]
		if !ok {
			declared := "It declares no variables at all."
			if len(order) > 0 {
				declared = "Declared: " + strings.Join(order, ", ") + "."
			}
			diag := &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("The lab declares no variable named %q (set by %s). %s", name, source, declared),
				Subject:  rng,
			}
			d.diags = append(d.diags, diag)
			return
		}
		cv, err := convert.Convert(raw, decl.ty)
		if err != nil {
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid value for variable",
				Detail:   fmt.Sprintf("The value of %s from %s is not compatible with its type %s: %s.", name, source, typeexpr.TypeString(decl.ty), err),
				Subject:  rng,
			})
			return
		}
		decl.val, decl.v.Source, decl.valRange = cv, source, rng
	}

	for _, kv := range opts.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, "LABGEN_VAR_") {
			continue
		}
		name := strings.TrimPrefix(k, "LABGEN_VAR_")
		if _, declared := decls[name]; !declared {
			continue // the environment is shared; stray names are not errors
		}
		if val, ok := d.rawValue(name, decls[name].ty, v, "environment variable "+k); ok {
			set(name, "env", val, nil)
		}
	}
	for _, arg := range opts.Vars {
		if arg.File != "" {
			d.varFile(arg.File, p, set)
			continue
		}
		if decl, ok := decls[arg.Name]; ok {
			if val, ok := d.rawValue(arg.Name, decl.ty, arg.Value, "-var "+arg.Name); ok {
				set(arg.Name, "var", val, nil)
			}
		} else {
			set(arg.Name, "-var "+arg.Name, cty.StringVal(arg.Value), nil)
		}
	}

	vals := map[string]cty.Value{}
	for _, name := range order {
		decl := decls[name]
		if decl.val == cty.NilVal {
			if decl.badDefault {
				continue
			}
			d.errorf(decl.v.DeclRange, "No value for required variable",
				"The variable %q has no default; set it with -var %s=VALUE, a -var-file, or LABGEN_VAR_%s.", name, name, name)
			decl.val = cty.UnknownVal(decl.ty)
			continue
		}
		vals[name] = decl.val
		decl.v.Type = typeexpr.TypeString(decl.ty)
		if decl.ty == cty.DynamicPseudoType {
			decl.v.Type = "any"
		}
		if b, err := ctyjson.Marshal(decl.val, decl.val.Type()); err == nil {
			decl.v.Value = b
		}
		d.lab.Variables = append(d.lab.Variables, decl.v)
	}
	if d.diags.HasErrors() {
		return vals
	}

	// Validations see every variable, as conditions may relate two of them.
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(vals)}, Functions: Functions(nil)}
	for _, name := range order {
		decl := decls[name]
		for _, vb := range decl.validations {
			vc, diags := vb.Body.Content(validationSchema)
			d.diags = append(d.diags, diags...)
			if diags.HasErrors() {
				continue
			}
			cond, diags := vc.Attributes["condition"].Expr.Value(ctx)
			d.diags = append(d.diags, diags...)
			if diags.HasErrors() {
				continue
			}
			if cond.IsNull() || cond.Type() != cty.Bool {
				d.errorf(vc.Attributes["condition"].Expr.Range(), "Invalid validation condition", "The condition must be true or false.")
				continue
			}
			if cond.False() {
				msg := d.constStr(vc.Attributes["error_message"])
				subject := decl.v.DeclRange
				if decl.valRange != nil {
					subject = *decl.valRange
				}
				d.errorf(subject, "Invalid value for variable", "%s\n\nThis was checked by the validation rule at %s.", msg, vc.Attributes["condition"].Expr.Range())
			}
		}
	}
	return vals
}

// constStr evaluates a string attribute that may not refer to anything.
func (d *decoder) constStr(a *hcl.Attribute) string {
	if a == nil {
		return ""
	}
	saved := d.ctx
	d.ctx = nil
	defer func() { d.ctx = saved }()
	return d.str(a)
}

// rawValue reads a value given on the command line or in the environment:
// text for strings, numbers, bools and untyped variables (as Terraform
// does), an HCL expression for collections and objects.
func (d *decoder) rawValue(name string, ty cty.Type, raw, source string) (cty.Value, bool) {
	if ty.IsPrimitiveType() || ty == cty.DynamicPseudoType {
		return cty.StringVal(raw), true
	}
	diags := checkNesting([]byte(raw), source, false)
	var expr hclsyntax.Expression
	if !diags.HasErrors() {
		expr, diags = hclsyntax.ParseExpression([]byte(raw), source, hcl.Pos{Line: 1, Column: 1})
	}
	if !diags.HasErrors() {
		boundFors(expr, d.parser)
		var v cty.Value
		v, diags = expr.Value(nil)
		if !diags.HasErrors() {
			return v, true
		}
	}
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid value for variable",
		Detail:   fmt.Sprintf("The value of %s from %s is not a valid HCL expression: %s.", name, source, strings.TrimSuffix(diags.Error(), ".")),
	})
	return cty.NilVal, false
}

func (d *decoder) varFile(path string, p *Parser, set func(string, string, cty.Value, *hcl.Range)) {
	f, diags := p.parseFile(path, "Cannot read variables file")
	d.diags = append(d.diags, diags...)
	if f == nil || diags.HasErrors() {
		return
	}
	attrs, diags := f.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	for _, a := range sortedAttrs(attrs) {
		v, diags := a.Expr.Value(nil)
		d.diags = append(d.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		r := a.Expr.Range()
		set(a.Name, "var-file", v, &r)
	}
}

// sortedAttrs orders attributes by position so messages come out in file order.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Range.Start.Byte < out[j-1].Range.Start.Byte; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
