package record

import (
	"fmt"
	"sort"
	"strings"
)

// Difference is one thing two records disagree on.
type Difference struct {
	// Where names the place: "lab", "variable order_rate",
	// "03 delayed_payment / pending".
	Where string
	What  string
	A, B  string
}

func (d Difference) String() string {
	if d.A == d.B {
		// Not a difference but a caveat both records share (a measure's
		// definition not recorded).
		return fmt.Sprintf("%s: %s: %s in both", d.Where, d.What, d.A)
	}
	return fmt.Sprintf("%s: %s: %s → %s", d.Where, d.What, d.A, d.B)
}

const absent = "(absent)"

// Diff compares what two records observed: the lab and its variables,
// which experiments and steps ran and how they ended, their measures (by
// name), captured values,
// expectation outcomes and counts (rows, messages). What always differs
// between runs (times, durations, record and job IDs, endpoints) is
// ignored, and so are captured identifiers (IdentifierCapture: which order
// a step followed depends on when it ran).
//
// A measure that the records define differently is not compared: Diff
// returns a *DefinitionError instead. One whose definition a record did
// not keep (an older record) is compared by name, and a line says the
// definition is not recorded.
func Diff(a, b *Record) ([]Difference, error) {
	if err := SameDefinitions([]*Record{a, b}, nil); err != nil {
		return nil, err
	}
	var out []Difference
	add := func(where, what, x, y string) {
		if x != y {
			out = append(out, Difference{Where: where, What: what, A: x, B: y})
		}
	}
	add("lab", "name", a.Lab.Name, b.Lab.Name)
	add("lab", "hash", a.Lab.Hash, b.Lab.Hash)
	add("lab", "seed", fmt.Sprint(a.Seed), fmt.Sprint(b.Seed))
	av, bv := map[string]string{}, map[string]string{}
	for _, v := range a.Variables {
		av[v.Name] = compactJSON(v.Value)
	}
	for _, v := range b.Variables {
		bv[v.Name] = compactJSON(v.Value)
	}
	for _, n := range union(keys(av), keys(bv)) {
		add("variable "+n, "value", get(av, n), get(bv, n))
	}

	for _, name := range union(expNames(a), expNames(b)) {
		ea, eb := a.Experiment(name), b.Experiment(name)
		where := name
		if e := firstNonNil(ea, eb); e != nil {
			where = ExperimentLabel(e.Number, name)
		}
		if ea == nil || eb == nil {
			add(where, "experiment", expState(ea), expState(eb))
			continue
		}
		add(where, "experiment", expState(ea), expState(eb))
		ma, mb := map[string]string{}, map[string]string{}
		da, db := map[string]Measure{}, map[string]Measure{}
		for _, m := range ea.Measures {
			ma[m.Name], da[m.Name] = m.Text(), m
		}
		for _, m := range eb.Measures {
			mb[m.Name], db[m.Name] = m.Text(), m
		}
		for _, n := range union(keys(ma), keys(mb)) {
			add(where, "measure "+quote(n), get(ma, n), get(mb, n))
			// A record that did not keep the definition is compared by
			// name alone: say so, and what it does keep, the expression.
			x, inA := da[n]
			y, inB := db[n]
			if inA && inB && (x.Definition == "" || y.Definition == "") {
				out = append(out, Difference{Where: where, What: "measure " + quote(n) + " definition", A: DefinitionText(x.Definition), B: DefinitionText(y.Definition)})
				add(where, "measure "+quote(n)+" expression", x.Expr, y.Expr)
			}
		}
		sa, sb := stepMap(ea), stepMap(eb)
		for _, sn := range union(stepNames(ea), stepNames(eb)) {
			x, y := sa[sn], sb[sn]
			sw := where + " / " + sn
			if x == nil || y == nil {
				add(sw, "step", stepState(x), stepState(y))
				continue
			}
			add(sw, "status", stepState(x), stepState(y))
			ca, cb := map[string]string{}, map[string]string{}
			ids := map[string]bool{}
			for _, c := range x.Captures {
				ca[c.Name] = captureText(c)
				ids[c.Name] = ids[c.Name] || x.IdentifierCapture(c)
			}
			for _, c := range y.Captures {
				cb[c.Name] = captureText(c)
				ids[c.Name] = ids[c.Name] || y.IdentifierCapture(c)
			}
			for n := range ids {
				if ids[n] {
					delete(ca, n)
					delete(cb, n)
				}
			}
			for _, n := range union(keys(ca), keys(cb)) {
				add(sw, "captured "+n, get(ca, n), get(cb, n))
			}
			na, nb := map[string]string{}, map[string]string{}
			for k, v := range x.Counts {
				na[k] = fmt.Sprint(v)
			}
			for k, v := range y.Counts {
				nb[k] = fmt.Sprint(v)
			}
			for _, n := range union(keys(na), keys(nb)) {
				add(sw, n, get(na, n), get(nb, n))
			}
			xa, xb := map[string]string{}, map[string]string{}
			for _, e := range x.Expectations {
				xa[e.Message] = expectText(e)
			}
			for _, e := range y.Expectations {
				xb[e.Message] = expectText(e)
			}
			for _, n := range union(keys(xa), keys(xb)) {
				add(sw, "expectation "+quote(n), get(xa, n), get(xb, n))
			}
		}
	}
	return out, nil
}

func quote(s string) string { return "“" + s + "”" }

func captureText(c Capture) string {
	if c.Error != "" {
		return "nothing (" + c.Error + ")"
	}
	return c.Display
}

func expectText(e Expectation) string {
	switch {
	case e.Error != "":
		return "not evaluated"
	case e.Held:
		return "held"
	}
	return "not held"
}

func expState(e *Experiment) string {
	if e == nil {
		return "not run"
	}
	if e.Status == ExpSkipped {
		return "skipped (" + e.Skipped + ")"
	}
	return e.Status
}

func stepState(s *Step) string {
	if s == nil {
		return "not run"
	}
	return s.Status
}

func firstNonNil(a, b *Experiment) *Experiment {
	if a != nil {
		return a
	}
	return b
}

func expNames(r *Record) []string {
	var out []string
	for _, e := range r.Experiments {
		out = append(out, e.Name)
	}
	return out
}

func stepNames(e *Experiment) []string {
	var out []string
	for _, s := range e.Steps {
		out = append(out, s.Name)
	}
	return out
}

func stepMap(e *Experiment) map[string]*Step {
	m := map[string]*Step{}
	for _, s := range e.Steps {
		m[s.Name] = s
	}
	return m
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func get(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return v
	}
	return absent
}

// union keeps a's order, then b's names that a lacks.
func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// FormatDiff writes differences one per line, or a sentence saying there
// are none.
func FormatDiff(ds []Difference) string {
	if len(ds) == 0 {
		return "The records agree on every step status, captured value, expectation and count.\n"
	}
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}
