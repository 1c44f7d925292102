package schemas

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A measure is its name and its definition: what decides its value. Two
// runs' values of a measure are comparable when their definitions are the
// same; a record keeps the definition beside the value, and record diff,
// the comparison page and sweep refuse to set two definitions side by
// side under one name.
//
// The definition is a hash of
//
//   - the value's expression as written (its tokens: spacing, line breaks
//     and comments do not count) and the unit;
//   - each step the value reads, followed through everything those steps
//     read in turn (a query's captured inputs, the step a wait re-runs):
//     its kind and what it runs (a query's engine and SQL, a preset's SQL,
//     a Kafka read, the Flink job and what it shows, the usage step's
//     services), a wait's condition, interval and duration, the captures
//     read and the step's samples;
//   - the values of the variables those expressions use where the lab
//     writes var.NAME into an expression kept for the run (elsewhere the
//     value is already in the text).
//
// It leaves out what does not decide the number: titles, texts, notes,
// expectations, timeouts (but a Kafka read's, which bounds what it
// reads), a measure's samples, window and resolution
// (they describe the value), steps the value does not read, and the
// system under test (jobs, producers, the stack), which runs of one
// measure are meant to vary.

// DefinitionPrefix begins every measure definition.
const DefinitionPrefix = "sha256:"

// definitionDoc is what a measure's definition hashes, as canonical JSON
// (struct fields in order, map keys sorted).
type definitionDoc struct {
	Value string `json:"value"`
	Unit  string `json:"unit"`
	// Steps by reference: "step.NAME" in the measure's experiment,
	// "experiment.EXP.NAME" in an earlier one.
	Steps map[string]stepDefinition `json:"steps"`
	Vars  map[string]string         `json:"vars,omitempty"`
}

type stepDefinition struct {
	Kind    string             `json:"kind"`
	Query   *queryDefinition   `json:"query,omitempty"`
	Kafka   *kafkaDefinition   `json:"kafka,omitempty"`
	Flink   *FlinkStep         `json:"flink,omitempty"`
	Lab     *LabStep           `json:"lab,omitempty"`
	Wait    *waitDefinition    `json:"wait,omitempty"`
	Usage   *UsageStep         `json:"usage,omitempty"`
	Compare *compareDefinition `json:"compare,omitempty"`
	// Captures are the ones read, by name.
	Captures map[string]string `json:"captures,omitempty"`
	Samples  map[string]string `json:"samples,omitempty"`
}

type queryDefinition struct {
	Engine  string `json:"engine"`
	SQL     string `json:"sql"`
	MaxRows int    `json:"max_rows"`
}

type kafkaDefinition struct {
	Topic   string `json:"topic"`
	Key     string `json:"key,omitempty"`
	Tail    int    `json:"tail,omitempty"`
	Offsets bool   `json:"offsets,omitempty"`
	Max     int    `json:"max"`
	Timeout string `json:"timeout"`
}

type waitDefinition struct {
	Duration string `json:"duration,omitempty"`
	Rerun    string `json:"rerun,omitempty"`
	Until    string `json:"until,omitempty"`
	Interval string `json:"interval,omitempty"`
}

type compareDefinition struct {
	Of     string `json:"of"`
	Column string `json:"column"`
}

// setDefinitions computes the definition of every measure of the lab.
func (l *Lab) setDefinitions() {
	for _, e := range l.Experiments {
		for _, m := range e.Measures {
			m.Definition = l.MeasureDefinition(e, m)
		}
	}
}

// MeasureDefinition is the definition of measure m of experiment e:
// DefinitionPrefix and the first 12 hex digits of the sha256 of what
// decides its value. It reads only what lab.json keeps, so a lab read
// back from lab.json gives the same definition.
func (l *Lab) MeasureDefinition(e *Experiment, m *Measure) string {
	doc := definitionDoc{Unit: m.Unit, Steps: map[string]stepDefinition{}, Vars: map[string]string{}}
	vars := map[string]bool{}
	doc.Value = exprDefinition(m.Value, vars)

	// The steps read, each with the captures read of it, followed to a
	// fixed point: a step read again for another capture is looked at
	// again.
	type stepKey struct{ exp, step string }
	need := map[stepKey]map[string]bool{}
	var queue []stepKey
	read := func(exp, step, capture string) {
		k := stepKey{exp, step}
		if need[k] == nil {
			need[k] = map[string]bool{}
			queue = append(queue, k)
		}
		if capture != "" && !need[k][capture] {
			need[k][capture] = true
			queue = append(queue, k)
		}
	}
	readRefs := func(refs []Ref) {
		for _, r := range refs {
			read(r.Experiment, r.Step, r.Name)
		}
	}
	readRefs(m.Value.Refs)
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		x := l.Experiment(k.exp)
		if x == nil {
			continue
		}
		s := x.Step(k.step)
		if s == nil {
			continue
		}
		def := stepDefinition{Kind: s.Kind, Flink: s.Flink, Lab: s.Lab, Usage: s.Usage}
		if q := s.Query; q != nil {
			def.Query = &queryDefinition{Engine: q.Engine, SQL: exprDefinition(q.SQL, vars), MaxRows: q.MaxRows}
			readRefs(q.SQL.Refs)
		}
		if kf := s.Kafka; kf != nil {
			def.Kafka = &kafkaDefinition{Topic: kf.Topic, Tail: kf.Tail, Offsets: kf.Offsets, Max: kf.Max, Timeout: kf.Timeout}
			if kf.Key != nil {
				def.Kafka.Key = exprDefinition(*kf.Key, vars)
				readRefs(kf.Key.Refs)
			}
		}
		if w := s.Wait; w != nil {
			def.Wait = &waitDefinition{Duration: w.Duration, Rerun: w.Rerun, Interval: w.Interval}
			if w.Until != nil {
				def.Wait.Until = exprDefinition(*w.Until, vars)
				readRefs(w.Until.Refs)
			}
			if w.Rerun != "" {
				read(k.exp, w.Rerun, "")
			}
		}
		if c := s.Compare; c != nil {
			def.Compare = &compareDefinition{Of: c.Of, Column: c.Column}
		}
		for _, c := range s.Captures {
			if need[k][c.Name] {
				if def.Captures == nil {
					def.Captures = map[string]string{}
				}
				def.Captures[c.Name] = exprDefinition(c.Expr, vars)
				readRefs(c.Expr.Refs)
			}
		}
		for _, c := range s.Samples {
			if def.Samples == nil {
				def.Samples = map[string]string{}
			}
			def.Samples[c.Name] = exprDefinition(c.Expr, vars)
			readRefs(c.Expr.Refs)
		}
		ref := "step." + k.step
		if k.exp != e.Name {
			ref = "experiment." + k.exp + "." + k.step
		}
		doc.Steps[ref] = def
	}
	for _, v := range l.Variables {
		if vars[v.Name] {
			var b bytes.Buffer
			if json.Compact(&b, v.Value) != nil {
				b.Reset()
				b.Write(v.Value)
			}
			doc.Vars[v.Name] = b.String()
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "" // only maps of strings and plain structs: cannot happen
	}
	sum := sha256.Sum256(b)
	return DefinitionPrefix + hex.EncodeToString(sum[:])[:12]
}

// exprDefinition is an expression as it counts in a definition: a run-time
// expression's tokens, one space apart (so that formatting and comments do
// not count), or a static value's text; the variables a run-time
// expression uses are added to vars.
func exprDefinition(x Expr, vars map[string]bool) string {
	if x.Source == "" {
		return "=" + x.Text
	}
	src := x.Source
	if strings.HasPrefix(strings.TrimSpace(src), "<<") && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	if expr, diags := hclsyntax.ParseExpression([]byte(src), "lab.json", hcl.InitialPos); !diags.HasErrors() {
		for _, tr := range expr.Variables() {
			if tr.RootName() == "var" && len(tr) > 1 {
				if a, ok := tr[1].(hcl.TraverseAttr); ok {
					vars[a.Name] = true
				}
			}
		}
	}
	toks, diags := hclsyntax.LexExpression([]byte(src), "lab.json", hcl.InitialPos)
	if diags.HasErrors() {
		return src
	}
	return tokenText(toks)
}
