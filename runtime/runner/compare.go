package runner

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/labgen/labgen/runtime/query"
	"github.com/labgen/labgen/runtime/record"
	"github.com/labgen/labgen/schemas"
)

// compareBins bounds the bins of a comparison: about √n, as a histogram
// of n values reads best, within [5, 30].
func compareBins(n int) int {
	return min(30, max(5, int(math.Ceil(math.Sqrt(float64(n))))))
}

// compare sets the values of c.Column in res beside c's declared
// distribution, binned; the step's table becomes the bins (the values
// themselves are kept in record.json).
func compare(c *schemas.CompareStep, res *query.Result) (*record.Compare, record.Table, error) {
	col := slices.IndexFunc(res.Columns, func(x query.Column) bool { return x.Name == c.Column })
	if col < 0 {
		var names []string
		for _, x := range res.Columns {
			names = append(names, x.Name)
		}
		return nil, record.Table{}, fmt.Errorf("compare: the query returned no column %q (it returned %s)", c.Column, strings.Join(names, ", "))
	}
	rc := &record.Compare{Of: c.Of, Declared: c.Declared, Column: c.Column, Unit: c.Unit, Values: []float64{}}
	for _, row := range res.Rows {
		v := goValue(row[col])
		if v.IsNull() || v.Type() != cty.Number {
			rc.Skipped++
			continue
		}
		f, _ := v.AsBigFloat().Float64()
		rc.Values = append(rc.Values, f)
	}
	t := record.Table{Columns: []string{"from", "to", "observed", "declared (expected of as many)"}}
	if len(rc.Values) == 0 {
		return rc, t, nil
	}
	cdf := c.Dist.CDF()
	lo, hi := slices.Min(rc.Values), slices.Max(rc.Values)
	if hi == lo {
		hi = lo + 1
	}
	n := compareBins(len(rc.Values))
	width := (hi - lo) / float64(n)
	rc.Bins = make([]record.Bin, n)
	for i := range rc.Bins {
		rc.Bins[i].Lo, rc.Bins[i].Hi = lo+float64(i)*width, lo+float64(i+1)*width
	}
	for _, v := range rc.Values {
		i := min(n-1, int((v-lo)/width))
		rc.Bins[i].Observed++
	}
	total := float64(len(rc.Values))
	for i := range rc.Bins {
		// The first and last bins take the declared tails, so that the
		// declared counts add up to as many values as were observed.
		from, to := cdf(rc.Bins[i].Lo), cdf(rc.Bins[i].Hi)
		if i == 0 {
			from = 0
		}
		if i == n-1 {
			to = 1
		}
		rc.Bins[i].Declared = total * max(0, to-from)
		g := func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
		t.Rows = append(t.Rows, []string{g(rc.Bins[i].Lo), g(rc.Bins[i].Hi), strconv.Itoa(rc.Bins[i].Observed), strconv.FormatFloat(rc.Bins[i].Declared, 'f', 1, 64)})
	}
	return rc, t, nil
}
