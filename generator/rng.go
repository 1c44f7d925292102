package generator

import "math/rand/v2"

// Randomness. Every random value is a pure function of the seed, a stream
// and an event number: the stream names what is drawn ("shop/field/category",
// "shop/follow/payment/delay", ...), the number is the parent event's. Each
// value gets a PCG generator seeded from a hash of the three, so
//
//   - nothing depends on the order in which values are drawn, on batching,
//     on retries or on which events a run skips (a resumed run computes the
//     values of order 1,000,000 without drawing the 999,999 before it);
//   - adding, removing or reordering a field leaves the others unchanged,
//     since a field's stream is keyed by its name, not its position.
//
// Reseeding a PCG is two stores; the hashing is a few multiplications.

const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 finaliser: a bijection that spreads every input
// bit over the whole output.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// streamKey derives the key of a named stream from the seed.
func streamKey(seed int64, parts ...string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a offset basis
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h ^= uint64(p[i])
			h *= 1099511628211
		}
		h ^= 0xff // separator: ("ab","c") differs from ("a","bc")
		h *= 1099511628211
	}
	return mix64(h ^ mix64(uint64(seed)+golden))
}

// rng hands out the generator of one (stream, event) pair. It is not safe
// for concurrent use; each stream of events owns one.
type rng struct {
	pcg rand.PCG
	r   *rand.Rand
}

func newRNG() *rng {
	g := &rng{}
	g.r = rand.New(&g.pcg)
	return g
}

// at returns the generator for the draws of stream key at event index.
func (g *rng) at(key uint64, index int64) *rand.Rand {
	x := mix64(key ^ uint64(index)*golden)
	g.pcg.Seed(x, mix64(x+golden))
	return g.r
}
