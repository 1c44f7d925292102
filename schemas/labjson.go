package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// MarshalLab encodes the lab as lab.json: indented, keys in declaration
// order of the model, so the bytes are stable.
func MarshalLab(l *Lab) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReadLabJSON reads a rendered lab's lab.json.
func ReadLabJSON(path string) (*Lab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Lab
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s is not a lab description: %w", path, err)
	}
	if l.Stack == nil {
		l.Stack = &Stack{}
	}
	return &l, nil
}

// VarValues rebuilds the variables' values from lab.json.
func (l *Lab) VarValues() (map[string]cty.Value, error) {
	out := map[string]cty.Value{}
	for _, v := range l.Variables {
		var ty cty.Type
		if v.Type == "any" || v.Type == "" {
			t, err := ctyjson.ImpliedType(v.Value)
			if err != nil {
				return nil, fmt.Errorf("variable %s: %w", v.Name, err)
			}
			ty = t
		} else {
			expr, diags := hclsyntax.ParseExpression([]byte(v.Type), "type", hcl.InitialPos)
			if diags.HasErrors() {
				return nil, fmt.Errorf("variable %s: type %q: %s", v.Name, v.Type, diags.Error())
			}
			t, diags := typeexpr.TypeConstraint(expr)
			if diags.HasErrors() {
				return nil, fmt.Errorf("variable %s: type %q: %s", v.Name, v.Type, diags.Error())
			}
			ty = t
		}
		val, err := ctyjson.Unmarshal(v.Value, ty)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", v.Name, err)
		}
		out[v.Name] = val
	}
	return out, nil
}

// Captures holds what a run captured: experiment → step → name → value.
type Captures map[string]map[string]map[string]cty.Value

// Set records one captured value.
func (c Captures) Set(experiment, step, name string, v cty.Value) {
	if c[experiment] == nil {
		c[experiment] = map[string]map[string]cty.Value{}
	}
	if c[experiment][step] == nil {
		c[experiment][step] = map[string]cty.Value{}
	}
	c[experiment][step][name] = v
}

func objectOf(m map[string]map[string]cty.Value) cty.Value {
	steps := map[string]cty.Value{}
	for s, caps := range m {
		steps[s] = cty.ObjectVal(caps)
	}
	return cty.ObjectVal(steps)
}

// RunContext is the evaluation context of run-time expressions in one
// experiment: var, step (this experiment's captures), experiment (earlier
// experiments' captures) and, when not NilVal, result.
func RunContext(vars map[string]cty.Value, experiment string, caps Captures, result cty.Value) *hcl.EvalContext {
	exps := map[string]cty.Value{}
	for e, m := range caps {
		exps[e] = objectOf(m)
	}
	v := map[string]cty.Value{
		"var":        cty.ObjectVal(vars),
		"step":       objectOf(caps[experiment]),
		"experiment": cty.ObjectVal(exps),
	}
	if result != cty.NilVal {
		v["result"] = result
	}
	return &hcl.EvalContext{Variables: v, Functions: Functions(nil)}
}

// Eval evaluates an expression at run time; a static one is its text.
func (e Expr) Eval(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if e.Source == "" {
		return cty.StringVal(e.Text), nil
	}
	expr, diags := hclsyntax.ParseExpression([]byte(e.Source), "lab.json", hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return expr.Value(ctx)
}
