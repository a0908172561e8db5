package synth

import "math/rand/v2"

// alias samples an index from a fixed discrete distribution in O(1) with
// one random number (Walker's alias method, Vose's construction).
type alias struct {
	cut   []uint32 // accept index i when the low 32 bits are below cut[i]
	other []uint32 // the alias of index i
}

// newAlias builds a sampler for weights (not necessarily normalised; at
// least one must be positive, none negative).
func newAlias(weights []float64) alias {
	n := len(weights)
	if n == 0 {
		panic("synth: newAlias: no weights")
	}
	var sum float64
	for _, w := range weights {
		if w < 0 {
			panic("synth: newAlias: negative weight")
		}
		sum += w
	}
	if !(sum > 0) {
		panic("synth: newAlias: weights sum to zero")
	}
	a := alias{cut: make([]uint32, n), other: make([]uint32, n)}
	p := make([]float64, n)
	var small, large []int
	for i, w := range weights {
		p[i] = w / sum * float64(n)
		a.other[i] = uint32(i)
		if p[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.cut[s] = prob32(p[s])
		a.other[s] = uint32(l)
		p[l] -= 1 - p[s]
		if p[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		a.cut[i] = 1<<32 - 1
	}
	for _, i := range small { // rounding leftovers
		a.cut[i] = 1<<32 - 1
	}
	return a
}

// prob32 converts a probability in [0, 1] to a 32-bit threshold.
func prob32(p float64) uint32 {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return 1<<32 - 1
	}
	return uint32(p * (1 << 32))
}

// draw returns an index in [0, len(weights)).
func (a *alias) draw(r *rand.Rand) int {
	u := r.Uint64()
	i := int((u >> 32) * uint64(len(a.cut)) >> 32)
	if uint32(u) < a.cut[i] {
		return i
	}
	return int(a.other[i])
}
