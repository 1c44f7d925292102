package generator

import (
	"math"
	"sort"
	"testing"

	"github.com/labgen/labgen/schemas"
)

// The statistical tests draw from fixed seeds, so each one either always
// passes or always fails: they cannot flake. Every check is run for
// several seeds at a 0.1% significance level, so a correct generator
// passes them all with margin, and each check is shown to reject a wrong
// distribution (TestStatisticsReject), so none of them passes vacuously.

var statSeeds = []int64{20261129, 1, 2, 3, 42}

// chi2Critical is the 0.999 quantile of the chi-square distribution with
// df degrees of freedom: exact values up to 10, then Wilson–Hilferty.
func chi2Critical(df int) float64 {
	exact := []float64{0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588}
	if df < len(exact) {
		return exact[df]
	}
	const z = 3.0902 // 0.999 quantile of the standard normal
	k := float64(df)
	return k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
}

func chiSquare(observed []int64, probs []float64) float64 {
	var n int64
	for _, o := range observed {
		n += o
	}
	x := 0.0
	for i, o := range observed {
		e := probs[i] * float64(n)
		x += (float64(o) - e) * (float64(o) - e) / e
	}
	return x
}

// ksStatistic is the Kolmogorov–Smirnov distance between the sample and
// the distribution function cdf.
func ksStatistic(xs []float64, cdf func(float64) float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

// ksCritical is the 0.999 critical value of the KS distance for n draws.
func ksCritical(n int) float64 { return 1.9495 / math.Sqrt(float64(n)) }

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// drawNumeric draws n values of a numeric distribution the way a field
// does: one seeded generator per event number.
func drawNumeric(t *testing.T, d *schemas.Dist, seed int64, n int) []float64 {
	t.Helper()
	nm, err := newNumeric(d)
	if err != nil {
		t.Fatal(err)
	}
	g := newRNG()
	key := streamKey(seed, "test", d.Kind)
	out := make([]float64, n)
	for i := range out {
		out[i] = nm.sample(g.at(key, int64(i)))
	}
	return out
}

// fieldValues evaluates a field of the seed lab's producer for parents
// 0..n-1.
func fieldValues(t *testing.T, p *Plan, name string, n int) []Value {
	t.Helper()
	fd := p.byName[name]
	if fd == nil {
		t.Fatalf("no field %q", name)
	}
	g := newRNG()
	out := make([]Value, n)
	for i := range out {
		e := ectx{index: int64(i), seq: int64(i)}
		out[i] = fd.fn(g, &e)
	}
	return out
}

func f64(x float64) *float64 { return &x }

func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1))
}

func TestWeightedChiSquare(t *testing.T) {
	lab := loadLab(t)
	const n = 200_000
	for _, seed := range statSeeds {
		p := compile(t, lab, seed)[0]
		var d *schemas.Dist
		for _, f := range lab.Producers[0].Fields {
			if f.Name == "category" {
				d = f.Dist
			}
		}
		w, err := newWeighted(d)
		must(t, err)
		idx := map[string]int{}
		probs := make([]float64, len(w.values))
		for i, v := range w.values {
			idx[v] = i
			probs[i] = w.probability(i)
		}
		counts := make([]int64, len(w.values))
		for _, v := range fieldValues(t, p, "category", n) {
			counts[idx[v.s]]++
		}
		x := chiSquare(counts, probs)
		if crit := chi2Critical(len(counts) - 1); x > crit {
			t.Errorf("seed %d: category counts %v for weights %v: chi-square %.2f > %.2f", seed, counts, d.Choices, x, crit)
		}
	}
}

func TestUniformIntChiSquare(t *testing.T) {
	lab := loadLab(t)
	const n, bins = 200_000, 50 // customer_id is uniform_int(1, 5000): 100 values a bin
	for _, seed := range statSeeds {
		p := compile(t, lab, seed)[0]
		counts := make([]int64, bins)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, v := range fieldValues(t, p, "customer_id", n) {
			if v.k != kInt {
				t.Fatalf("customer_id %v is not an integer", v.Go())
			}
			lo, hi = min(lo, v.i), max(hi, v.i)
			if v.i < 1 || v.i > 5000 {
				t.Fatalf("customer_id %d outside [1, 5000]", v.i)
			}
			counts[(v.i-1)/100]++
		}
		if lo != 1 || hi != 5000 {
			t.Errorf("seed %d: customer_id spans [%d, %d], want both ends of [1, 5000]", seed, lo, hi)
		}
		probs := make([]float64, bins)
		for i := range probs {
			probs[i] = 1.0 / bins
		}
		if x, crit := chiSquare(counts, probs), chi2Critical(bins-1); x > crit {
			t.Errorf("seed %d: customer_id bins: chi-square %.2f > %.2f", seed, x, crit)
		}
	}
}

func TestContinuousKS(t *testing.T) {
	const n = 100_000
	cases := []struct {
		d   *schemas.Dist
		cdf func(float64) float64
	}{
		{&schemas.Dist{Kind: schemas.DistUniform, Min: f64(2), Max: f64(5)}, func(x float64) float64 { return (x - 2) / 3 }},
		{&schemas.Dist{Kind: schemas.DistNormal, Mean: 10, Stddev: 3}, func(x float64) float64 { return normCDF((x - 10) / 3) }},
		{&schemas.Dist{Kind: schemas.DistLogNormal, Mu: 4, Sigma: 0.7}, func(x float64) float64 { return normCDF((math.Log(x) - 4) / 0.7) }},
		{&schemas.Dist{Kind: schemas.DistExponential, Mean: 45}, func(x float64) float64 { return 1 - math.Exp(-x/45) }},
	}
	for _, c := range cases {
		for _, seed := range statSeeds {
			xs := drawNumeric(t, c.d, seed, n)
			if d, crit := ksStatistic(xs, c.cdf), ksCritical(n); d > crit {
				t.Errorf("%s seed %d: KS distance %.5f > %.5f", c.d.Kind, seed, d, crit)
			}
		}
	}
}

// TestClampedMoments checks the seed lab's order amounts, a lognormal
// clamped to [1, 5000] and rounded to cents, by its moments.
func TestClampedMoments(t *testing.T) {
	lab := loadLab(t)
	const n = 200_000
	mu, sigma := 4.0, 0.7
	wantMean := math.Exp(mu + sigma*sigma/2)
	wantSD := wantMean * math.Sqrt(math.Exp(sigma*sigma)-1)
	for _, seed := range statSeeds {
		p := compile(t, lab, seed)[0]
		var xs []float64
		for _, v := range fieldValues(t, p, "order_amount", n) {
			if v.f < 1 || v.f > 5000 {
				t.Fatalf("order_amount %v outside the clamp [1, 5000]", v.f)
			}
			if cents := v.f * 100; math.Abs(cents-math.Round(cents)) > 1e-6 {
				t.Fatalf("order_amount %v is not rounded to cents", v.f)
			}
			xs = append(xs, v.f)
		}
		m, sd := meanSD(xs)
		// The clamp moves the moments by far less than the tolerance:
		// P(x < 1) and P(x > 5000) are both below 1e-8.
		if se := wantSD / math.Sqrt(n); math.Abs(m-wantMean) > 4*se {
			t.Errorf("seed %d: mean order_amount %.3f, want %.3f ± %.3f", seed, m, wantMean, 4*se)
		}
		if math.Abs(sd-wantSD)/wantSD > 0.05 {
			t.Errorf("seed %d: standard deviation %.3f, want %.3f ± 5%%", seed, sd, wantSD)
		}
	}
}

func TestClampBounds(t *testing.T) {
	d := &schemas.Dist{Kind: schemas.DistNormal, Mean: 0, Stddev: 1, Min: f64(-0.5), Max: f64(1)}
	xs := drawNumeric(t, d, 1, 100_000)
	atLo, atHi := 0, 0
	for _, x := range xs {
		if x < -0.5 || x > 1 {
			t.Fatalf("%v escapes the clamp [-0.5, 1]", x)
		}
		if x == -0.5 {
			atLo++
		}
		if x == 1 {
			atHi++
		}
	}
	// Clamping (not redrawing) puts the tails on the bounds.
	for _, c := range []struct {
		name string
		got  int
		p    float64
	}{{"min", atLo, normCDF(-0.5)}, {"max", atHi, 1 - normCDF(1)}} {
		want := c.p * 100_000
		if se := math.Sqrt(want * (1 - c.p)); math.Abs(float64(c.got)-want) > 4*se {
			t.Errorf("%d draws at the %s, want %.0f ± %.0f", c.got, c.name, want, 4*se)
		}
	}
}

// followUps runs the seed lab's stream for n parents and returns the
// follow-up events.
func followUps(t *testing.T, p *Plan, n int64) (parents int64, fus []Event) {
	t.Helper()
	s := NewStream(p, StreamConfig{Start: epoch, Count: n})
	for {
		ev, ok := s.Next()
		if !ok {
			return parents, fus
		}
		if ev.Follow < 0 {
			parents++
		} else {
			fus = append(fus, ev)
		}
	}
}

// TestOutcomeShares checks the shares of PAID, FAILED and no payment at
// all (NONE) against the declared weights 80/15/5.
func TestOutcomeShares(t *testing.T) {
	lab := loadLab(t)
	const n = 100_000
	for _, seed := range statSeeds {
		p := compile(t, lab, seed)[0]
		f := p.Follows[0]
		parents, fus := followUps(t, p, n)
		counts := make([]int64, len(f.Outcomes))
		for _, ev := range fus {
			counts[ev.Outcome]++
		}
		if counts[f.Never] != 0 {
			t.Fatalf("%d follow-ups with the never outcome %s", counts[f.Never], f.Outcomes[f.Never])
		}
		counts[f.Never] = parents - int64(len(fus))
		probs := make([]float64, len(f.Outcomes))
		for i := range probs {
			probs[i] = f.outcome.probability(i)
		}
		if x, crit := chiSquare(counts, probs), chi2Critical(len(counts)-1); x > crit {
			t.Errorf("seed %d: outcomes %v %v: chi-square %.2f > %.2f", seed, f.Outcomes, counts, x, crit)
		}
	}
}

// TestDelayMean checks the payment delays: exponential with mean 45s,
// clamped at 5m, so their mean is 45·(1 − e^(−300/45)).
func TestDelayMean(t *testing.T) {
	lab := loadLab(t)
	want := 45 * (1 - math.Exp(-300.0/45))
	for _, seed := range statSeeds {
		p := compile(t, lab, seed)[0]
		_, fus := followUps(t, p, 100_000)
		var ds []float64
		atMax := 0
		for _, ev := range fus {
			d := float64(ev.Time-ev.ParentTime) / 1e9
			if d < 0 || d > 300 {
				t.Fatalf("delay %.3fs outside [0, 300]", d)
			}
			if d == 300 {
				atMax++
			}
			ds = append(ds, d)
		}
		m, _ := meanSD(ds)
		if se := 45 / math.Sqrt(float64(len(ds))); math.Abs(m-want) > 4*se {
			t.Errorf("seed %d: mean delay %.3fs, want %.3f ± %.3f", seed, m, want, 4*se)
		}
		cdf := func(x float64) float64 {
			if x >= 300 {
				return 1
			}
			return 1 - math.Exp(-x/45)
		}
		if d, crit := ksStatistic(ds, cdf), ksCritical(len(ds)); d > crit {
			t.Errorf("seed %d: delays: KS distance %.5f > %.5f", seed, d, crit)
		}
		pMax := math.Exp(-300.0 / 45)
		wantMax := pMax * float64(len(ds))
		if se := math.Sqrt(wantMax); math.Abs(float64(atMax)-wantMax) > 4*se+1 {
			t.Errorf("seed %d: %d delays clamped at 5m, want %.0f ± %.0f", seed, atMax, wantMax, 4*se+1)
		}
	}
}

// TestStreamsIndependent checks that the random streams do not echo each
// other: fields of one order, and one field over consecutive orders, are
// uncorrelated.
func TestStreamsIndependent(t *testing.T) {
	lab := loadLab(t)
	const n = 100_000
	p := compile(t, lab, lab.Seed)[0]
	amount := fieldValues(t, p, "order_amount", n)
	cust := fieldValues(t, p, "customer_id", n)
	var a, c, a1 []float64
	for i := range amount {
		a = append(a, math.Log(amount[i].f))
		c = append(c, float64(cust[i].i))
		if i > 0 {
			a1 = append(a1, math.Log(amount[i-1].f))
		}
	}
	limit := 4 / math.Sqrt(n) // 4 standard errors of a correlation of independent draws
	if r := correlation(a, c); math.Abs(r) > limit {
		t.Errorf("order_amount and customer_id correlate: r = %.4f", r)
	}
	if r := correlation(a[1:], a1); math.Abs(r) > limit {
		t.Errorf("consecutive order amounts correlate: r = %.4f", r)
	}
}

func correlation(x, y []float64) float64 {
	mx, sx := meanSD(x)
	my, sy := meanSD(y)
	s := 0.0
	for i := range x {
		s += (x[i] - mx) * (y[i] - my)
	}
	return s / float64(len(x)-1) / (sx * sy)
}

// TestStatisticsReject shows that each statistical check rejects a wrong
// distribution, so that a broken generator would fail the tests above.
func TestStatisticsReject(t *testing.T) {
	lab := loadLab(t)
	p := compile(t, lab, lab.Seed)[0]
	// Category counts against weights off by a little (30/20/20/15/15
	// tested as 27/20/20/16.5/16.5).
	w, err := newWeighted(&schemas.Dist{Kind: schemas.DistWeighted, Choices: []schemas.Choice{
		{Value: "books", Weight: 20}, {Value: "electronics", Weight: 27}, {Value: "fashion", Weight: 16.5},
		{Value: "grocery", Weight: 16.5}, {Value: "home", Weight: 20}}})
	must(t, err)
	idx := map[string]int{"books": 0, "electronics": 1, "fashion": 2, "grocery": 3, "home": 4}
	counts := make([]int64, 5)
	for _, v := range fieldValues(t, p, "category", 200_000) {
		counts[idx[v.s]]++
	}
	probs := []float64{w.probability(0), w.probability(1), w.probability(2), w.probability(3), w.probability(4)}
	if x := chiSquare(counts, probs); x <= chi2Critical(4) {
		t.Errorf("chi-square %.2f accepts category weights that are wrong", x)
	}
	// A normal(10, 3) sample against normal(10.1, 3) and normal(10, 3.1).
	xs := drawNumeric(t, &schemas.Dist{Kind: schemas.DistNormal, Mean: 10, Stddev: 3}, 1, 100_000)
	for _, c := range []struct{ m, s float64 }{{10.1, 3}, {10, 3.1}} {
		if d := ksStatistic(xs, func(x float64) float64 { return normCDF((x - c.m) / c.s) }); d <= ksCritical(len(xs)) {
			t.Errorf("KS distance %.5f accepts normal(%g, %g) for a normal(10, 3) sample", d, c.m, c.s)
		}
	}
	// Independence: a perfectly echoed stream is caught.
	if r := correlation(xs[1:], xs[:len(xs)-1]); math.Abs(r) > 4/math.Sqrt(float64(len(xs))) {
		t.Errorf("independent draws correlate: r = %.4f", r)
	}
	if r := correlation(xs, xs); r < 0.99 {
		t.Errorf("correlation of a sample with itself is %.4f", r)
	}
}
