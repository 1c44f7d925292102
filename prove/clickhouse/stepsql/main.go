// Command stepsql prints the SQL of a rendered lab's query steps as the
// runtime evaluates it (schemas.RunContext), with every value a run would
// capture replaced by a marker ⟦experiment.step.capture⟧, as JSON lines:
//
//	{"experiment":"trace_one_order","step":"source","engine":"mysql","sql":"… WHERE o.order_id = ⟦trace_one_order.pick.order_id⟧"}
//
// prove_clickhouse.py replaces the markers with values from the rows it
// inserted. Test infrastructure for prove/, not part of labgen.
//
//	go run ./prove/clickhouse/stepsql LAB_DIR/lab.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/labgen/labgen/schemas"
	"github.com/zclconf/go-cty/cty"
)

type stepSQL struct {
	Experiment string `json:"experiment"`
	Step       string `json:"step"`
	Engine     string `json:"engine"`
	SQL        string `json:"sql,omitempty"`
	Error      string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stepsql LAB_DIR/lab.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "stepsql:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	l, err := schemas.ReadLabJSON(path)
	if err != nil {
		return err
	}
	vars, err := l.VarValues()
	if err != nil {
		return err
	}
	caps := schemas.Captures{}
	for _, e := range l.Experiments {
		for _, s := range e.Steps {
			for _, c := range s.Captures {
				caps.Set(e.Name, s.Name, c.Name, cty.StringVal("⟦"+e.Name+"."+s.Name+"."+c.Name+"⟧"))
			}
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, e := range l.Experiments {
		for _, s := range e.Steps {
			if s.Kind != schemas.StepQuery || s.Query == nil {
				continue
			}
			out := stepSQL{Experiment: e.Name, Step: s.Name, Engine: s.Query.Engine}
			v, diags := s.Query.SQL.Eval(schemas.RunContext(vars, e.Name, caps, cty.NilVal))
			switch {
			case diags.HasErrors():
				out.Error = diags.Error()
			case v.IsNull() || !v.IsKnown() || v.Type() != cty.String:
				out.Error = "the SQL expression is not a known string"
			default:
				out.SQL = v.AsString()
			}
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
	}
	return nil
}
