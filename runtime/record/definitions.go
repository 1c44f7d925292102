package record

import (
	"fmt"
	"slices"
	"strings"
)

// A measure is its name and its definition (Measure.Definition: what
// decides its value). record diff, the comparison page and a sweep set a
// measure of several records side by side, or aggregate it, only when
// every record that recorded its definition recorded the same one; a
// record written before labgen kept definitions does not say, and is
// compared by the measure's name as before, saying so.

// MeasureUse is one holder's definition of a measure: a record's, or a
// variant's about to run.
type MeasureUse struct {
	// Holder names the record or variant in messages.
	Holder string
	// Experiment is "03 delayed_payment".
	Experiment string
	Measure    string
	// Definition is "" when the holder did not record one.
	Definition string
}

// DefinitionError is a measure that the holders define in more than one
// way: its values measure different things.
type DefinitionError struct {
	Experiment, Measure string
	// Definitions are each definition with its holders, in the order met.
	Definitions []HeldDefinition
}

// HeldDefinition is one definition of a measure and who holds it.
type HeldDefinition struct {
	Definition string
	Holders    []string
}

func (e *DefinitionError) Error() string {
	var parts []string
	for _, d := range e.Definitions {
		parts = append(parts, d.Definition+" in "+andList(d.Holders))
	}
	n := fmt.Sprint(len(e.Definitions))
	if len(e.Definitions) == 2 {
		n = "two"
	}
	return fmt.Sprintf("measure %s of experiment %s has %s definitions: %s; compare only runs of the same definition, or rename the measure",
		e.Measure, e.Experiment, n, strings.Join(parts, ", "))
}

// CheckDefinitions returns a *DefinitionError for the first measure (by
// experiment and name, in the order met) that the uses define in more
// than one way, or nil. Uses without a definition are not counted.
func CheckDefinitions(uses []MeasureUse) error {
	type key struct{ exp, name string }
	var order []key
	defs := map[key][]HeldDefinition{}
	for _, u := range uses {
		if u.Definition == "" {
			continue
		}
		k := key{u.Experiment, u.Measure}
		ds, seen := defs[k]
		if !seen {
			order = append(order, k)
		}
		found := false
		for i := range ds {
			if ds[i].Definition == u.Definition {
				if !slices.Contains(ds[i].Holders, u.Holder) {
					ds[i].Holders = append(ds[i].Holders, u.Holder)
				}
				found = true
			}
		}
		if !found {
			ds = append(ds, HeldDefinition{Definition: u.Definition, Holders: []string{u.Holder}})
		}
		defs[k] = ds
	}
	for _, k := range order {
		if len(defs[k]) > 1 {
			return &DefinitionError{Experiment: k.exp, Measure: k.name, Definitions: defs[k]}
		}
	}
	return nil
}

// MeasureUses are the measures of the records, each record named by
// names (its ID when names is nil).
func MeasureUses(rs []*Record, names []string) []MeasureUse {
	var out []MeasureUse
	for i, r := range rs {
		holder := r.ID
		if i < len(names) {
			holder = names[i]
		}
		for _, e := range r.Experiments {
			for _, m := range e.Measures {
				out = append(out, MeasureUse{Holder: holder, Experiment: ExperimentLabel(e.Number, e.Name), Measure: m.Name, Definition: m.Definition})
			}
		}
	}
	return out
}

// SameDefinitions is CheckDefinitions over the records' measures.
func SameDefinitions(rs []*Record, names []string) error {
	return CheckDefinitions(MeasureUses(rs, names))
}

// ExperimentLabel is how messages name an experiment: "03 delayed_payment".
func ExperimentLabel(number int, name string) string {
	return fmt.Sprintf("%02d %s", number, name)
}

// DefinitionText is a measure's definition as shown beside it: the hash,
// or that the record does not say.
func DefinitionText(def string) string {
	if def == "" {
		return "not recorded"
	}
	return def
}

// andList joins names as "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
