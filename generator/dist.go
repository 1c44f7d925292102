package generator

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/labgen/labgen/schemas"
)

// numeric draws numbers from one of the continuous or integer
// distributions of the lab language, clamped to [lo, hi].
type numeric struct {
	kind   string
	a, b   float64 // uniform: min, max; normal: mean, stddev; lognormal: mu, sigma; exponential: mean; constant: a
	lo, hi float64
}

func newNumeric(d *schemas.Dist) (*numeric, error) {
	n := &numeric{kind: d.Kind, lo: math.Inf(-1), hi: math.Inf(1)}
	if d.Min != nil {
		n.lo = *d.Min
	}
	if d.Max != nil {
		n.hi = *d.Max
	}
	switch d.Kind {
	case schemas.DistUniform, schemas.DistUniformInt:
		if d.Min == nil || d.Max == nil {
			return nil, fmt.Errorf("%s needs a min and a max", d.Kind)
		}
		n.a, n.b = *d.Min, *d.Max
		if n.b < n.a {
			return nil, fmt.Errorf("%s: max %g is less than min %g", d.Kind, n.b, n.a)
		}
		if d.Kind == schemas.DistUniformInt {
			n.a, n.b = math.Ceil(n.a), math.Floor(n.b)
			if n.b < n.a || n.b-n.a >= 1<<62 {
				return nil, fmt.Errorf("uniform_int(%g, %g) has no or too many whole numbers", *d.Min, *d.Max)
			}
		}
	case schemas.DistNormal:
		n.a, n.b = d.Mean, d.Stddev
	case schemas.DistLogNormal:
		n.a, n.b = d.Mu, d.Sigma
	case schemas.DistExponential:
		n.a = d.Mean
		if !(n.a > 0) {
			return nil, fmt.Errorf("exponential needs a positive mean, not %g", n.a)
		}
	case schemas.DistConstant:
		f, ok := number(d.Value)
		if !ok {
			return nil, fmt.Errorf("constant %v is not a number", d.Value)
		}
		n.a = f
	default:
		return nil, fmt.Errorf("%s is not a numeric distribution", d.Kind)
	}
	if n.b < 0 && (d.Kind == schemas.DistNormal || d.Kind == schemas.DistLogNormal) {
		return nil, fmt.Errorf("%s: negative spread %g", d.Kind, n.b)
	}
	return n, nil
}

// integer tells whether the distribution gives whole numbers only.
func (n *numeric) integer() bool { return n.kind == schemas.DistUniformInt }

// sample draws one value. It uses r only for as many draws as the kind
// needs, from a freshly seeded generator.
func (n *numeric) sample(r *rand.Rand) float64 {
	var x float64
	switch n.kind {
	case schemas.DistUniform:
		x = n.a + (n.b-n.a)*r.Float64()
	case schemas.DistUniformInt:
		x = n.a + float64(r.Int64N(int64(n.b-n.a)+1))
	case schemas.DistNormal:
		x = n.a + n.b*r.NormFloat64()
	case schemas.DistLogNormal:
		x = math.Exp(n.a + n.b*r.NormFloat64())
	case schemas.DistExponential:
		x = n.a * r.ExpFloat64()
	default:
		x = n.a
	}
	if x < n.lo {
		x = n.lo
	}
	if x > n.hi {
		x = n.hi
	}
	return x
}

// weighted chooses among values with relative weights.
type weighted struct {
	values []string
	cum    []float64 // cum[i] = sum of weights[0..i]
}

func newWeighted(d *schemas.Dist) (*weighted, error) {
	if len(d.Choices) == 0 {
		return nil, fmt.Errorf("weighted has no choices")
	}
	w := &weighted{}
	total := 0.0
	for _, c := range d.Choices {
		if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			return nil, fmt.Errorf("weighted: weight of %q is %g", c.Value, c.Weight)
		}
		total += c.Weight
		w.values = append(w.values, c.Value)
		w.cum = append(w.cum, total)
	}
	if total <= 0 {
		return nil, fmt.Errorf("weighted: all weights are zero")
	}
	return w, nil
}

func (w *weighted) total() float64 { return w.cum[len(w.cum)-1] }

// index draws the index of a choice.
func (w *weighted) index(r *rand.Rand) int {
	x := r.Float64() * w.total()
	i := sort.Search(len(w.cum), func(i int) bool { return w.cum[i] > x })
	if i == len(w.cum) { // unreachable: x < total
		i--
	}
	return i
}

// probability of choice i.
func (w *weighted) probability(i int) float64 {
	prev := 0.0
	if i > 0 {
		prev = w.cum[i-1]
	}
	return (w.cum[i] - prev) / w.total()
}

// number reads a constant of lab.json as a float64: json.Number as
// ReadLabJSON decodes it, float64 as the loader leaves a delay.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// constValue turns a constant of lab.json into a Value.
func constValue(v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return nullV(), nil
	case string:
		return stringV(x), nil
	case bool:
		return boolV(x), nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return intV(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return Value{}, fmt.Errorf("constant %s is not a number", x)
		}
		return floatV(f), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return intV(int64(x)), nil
		}
		return floatV(x), nil
	case int:
		return intV(int64(x)), nil
	case int64:
		return intV(x), nil
	}
	return Value{}, fmt.Errorf("constant %v (%T) is not a string, number, bool or null", v, v)
}
