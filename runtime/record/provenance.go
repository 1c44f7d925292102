package record

import (
	"fmt"
	"slices"
	"strings"
)

// HeadRow is one line of a record's head: a label and its value.
type HeadRow struct{ Label, Value string }

// ProvenanceRows are the head's lines that say what ran: versions,
// grouped by how they were known, and the engine settings, grouped by
// what they belong to. record.md and the published page both show these
// rows, so both say the same.
func (r *Record) ProvenanceRows() []HeadRow {
	var out []HeadRow
	var groups []string
	bySource := map[string][]string{}
	for _, v := range r.Versions {
		// Versions pinned by the lock are many and alike: one line.
		if strings.HasPrefix(v.Source, "labgen.lock") {
			if _, ok := bySource[v.Source]; !ok {
				groups = append(groups, v.Source)
			}
			bySource[v.Source] = append(bySource[v.Source], v.Name+" "+v.Version)
			continue
		}
		out = append(out, HeadRow{"Version of " + v.Name, fmt.Sprintf("%s (%s)", v.Version, v.Source)})
	}
	for _, g := range groups {
		out = append(out, HeadRow{"Jars of " + g, strings.Join(bySource[g], ", ")})
	}
	var ofs []string
	byOf := map[string][]string{}
	srcOf := map[string][]string{}
	for _, s := range r.Settings {
		if _, ok := byOf[s.Of]; !ok {
			ofs = append(ofs, s.Of)
		}
		byOf[s.Of] = append(byOf[s.Of], s.Name+" = "+s.Value)
		if !slices.Contains(srcOf[s.Of], s.Source) {
			srcOf[s.Of] = append(srcOf[s.Of], s.Source)
		}
	}
	for _, of := range ofs {
		out = append(out, HeadRow{"Settings of " + of, strings.Join(byOf[of], "; ") + " (" + strings.Join(srcOf[of], ", ") + ")"})
	}
	return out
}
