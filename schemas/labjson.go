package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// LabJSONFormat is the version of lab.json's format: the contract between
// render and every command that runs a rendered lab. Raise it when a
// change would make an older labgen misread a newer lab.json or the other
// way round (a field renamed, removed or meaning something else); a new
// field that older readers may ignore does not need it.
//
// 2: run-time expressions carry the captured values they use (refs),
// which the runner reads instead of parsing the expressions again.
const LabJSONFormat = 2

// labFile is lab.json: its format version first, then the lab.
type labFile struct {
	Format int `json:"format"`
	*Lab
}

// FormatError is ReadLabJSON's error for a lab.json of another format
// version than this labgen's.
type FormatError struct {
	Path   string
	Format int // 0: written before lab.json had a version
}

func (e *FormatError) Error() string {
	if e.Format == 0 || e.Format < LabJSONFormat {
		return fmt.Sprintf("%s was rendered by an older labgen (lab.json format %d; this labgen reads format %d): render the lab again", e.Path, e.Format, LabJSONFormat)
	}
	return fmt.Sprintf("%s was rendered by a newer labgen (lab.json format %d; this labgen reads format %d): run it with that labgen, or render the lab again with this one", e.Path, e.Format, LabJSONFormat)
}

// MarshalLab encodes the lab as lab.json: indented, its format version
// first, then keys in declaration order of the model, so the bytes are
// stable.
func MarshalLab(l *Lab) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(labFile{Format: LabJSONFormat, Lab: l}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReadLabJSON reads a rendered lab's lab.json. One of another format
// version is a *FormatError, checked before the rest is decoded.
func ReadLabJSON(path string) (*Lab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Format json.RawMessage `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s is not a lab description: %w", path, err)
	}
	var format int
	if len(head.Format) > 0 {
		if err := json.Unmarshal(head.Format, &format); err != nil {
			return nil, fmt.Errorf("%s: format is %s, not a version number", path, head.Format)
		}
	}
	if format != LabJSONFormat {
		return nil, &FormatError{Path: path, Format: format}
	}
	l := labFile{Lab: &Lab{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s is not a lab description: %w", path, err)
	}
	if l.Stack == nil {
		l.Stack = &Stack{}
	}
	return l.Lab, nil
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
	return &hcl.EvalContext{Variables: v, Functions: runFunctions()}
}

// Eval evaluates an expression at run time; a static one is its text.
func (e Expr) Eval(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if e.Source == "" {
		return cty.StringVal(e.Text), nil
	}
	expr, diags := e.Parse()
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return expr.Value(ctx)
}

// Parse parses a run-time expression's source. A heredoc (<<-SQL … SQL)
// parses only with a newline after its closing marker, which a source
// written by hand into lab.json may lack.
func (e Expr) Parse() (hcl.Expression, hcl.Diagnostics) {
	src := e.Source
	if strings.HasPrefix(strings.TrimSpace(src), "<<") && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	if diags := checkNesting([]byte(src), "lab.json", false); diags.HasErrors() {
		return nil, diags
	}
	return hclsyntax.ParseExpression([]byte(src), "lab.json", hcl.InitialPos)
}
