package schemas

import "strings"

// closest is the candidate nearest to name, for "Did you mean" hints: one
// that differs only in case, else one at most two edits away; "" when
// none is that close.
func closest(name string, candidates []string) string {
	best, dist := "", 3
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c
		}
		if k := editDistance(c, name); k < dist {
			best, dist = c, k
		}
	}
	return best
}

// DidYouMean is " Did you mean X?" for the candidate closest to name (in
// case, or within two edits), or "": the one hint of labgen's messages,
// the loader's and the command line's.
func DidYouMean(name string, candidates []string) string { return didYouMean(name, candidates) }

// didYouMean is " Did you mean X?" for the closest candidate, or "".
func didYouMean(name string, candidates []string) string {
	if c := closest(name, candidates); c != "" {
		return " Did you mean " + c + "?"
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// namesOf lists the names of xs, in order.
func namesOf[T any](xs []T, name func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

func stepNames(steps []*Step) []string {
	return namesOf(steps, func(s *Step) string { return s.Name })
}

// The hints for names of the lab's parts, as far as they are decoded.

func (d *decoder) jobHint(n string) string {
	return didYouMean(n, namesOf(d.lab.Jobs, func(j *Job) string { return j.Name }))
}

func (d *decoder) tableHint(n string) string {
	return didYouMean(n, namesOf(d.lab.Tables, func(t *Table) string { return t.Name }))
}

func (d *decoder) presetHint(n string) string {
	return didYouMean(n, namesOf(d.lab.Presets, func(p *Preset) string { return p.Name }))
}

// columnHint suggests a column of t.
func columnHint(t *Table, n string) string {
	return didYouMean(n, namesOf(t.Columns, func(c *Column) string { return c.Name }))
}
