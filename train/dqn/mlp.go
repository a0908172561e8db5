package dqn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MLP is a fully connected network with ReLU hidden layers and a linear
// output layer. W[l] is layer l's weight matrix, row-major [out][in]; B[l]
// its bias.
type MLP struct {
	Sizes []int // input, hidden..., output
	W     [][]float64
	B     [][]float64
}

// NewMLP returns an MLP with He-uniform weights and zero biases drawn from
// a PCG source seeded with seed.
func NewMLP(sizes []int, seed uint64) (*MLP, error) {
	if len(sizes) < 2 {
		return nil, fmt.Errorf("dqn: MLP needs at least 2 layer sizes, got %v", sizes)
	}
	for _, n := range sizes {
		if n < 1 {
			return nil, fmt.Errorf("dqn: layer size %d in %v", n, sizes)
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x6d6c70))
	m := zeroMLP(sizes)
	for l := range m.W {
		in := sizes[l]
		lim := math.Sqrt(6 / float64(in))
		for i := range m.W[l] {
			m.W[l][i] = (2*r.Float64() - 1) * lim
		}
	}
	return m, nil
}

func zeroMLP(sizes []int) *MLP {
	m := &MLP{Sizes: append([]int(nil), sizes...)}
	for l := range len(sizes) - 1 {
		m.W = append(m.W, make([]float64, sizes[l]*sizes[l+1]))
		m.B = append(m.B, make([]float64, sizes[l+1]))
	}
	return m
}

// Clone returns a deep copy.
func (m *MLP) Clone() *MLP {
	c := zeroMLP(m.Sizes)
	c.CopyFrom(m)
	return c
}

// CopyFrom copies src's parameters into m (same sizes).
func (m *MLP) CopyFrom(src *MLP) {
	for l := range m.W {
		copy(m.W[l], src.W[l])
		copy(m.B[l], src.B[l])
	}
}

// blend moves m towards src: m = (1−w)·m + w·src.
func (m *MLP) blend(src *MLP, w float64) {
	ps, ss := m.Params(), src.Params()
	for k := range ps {
		for i, v := range ss[k] {
			ps[k][i] += w * (v - ps[k][i])
		}
	}
}

// Params returns the parameter slices in order (W0, B0, W1, B1, ...).
func (m *MLP) Params() [][]float64 {
	var p [][]float64
	for l := range m.W {
		p = append(p, m.W[l], m.B[l])
	}
	return p
}

// NumParams returns the number of parameters.
func (m *MLP) NumParams() int {
	n := 0
	for _, p := range m.Params() {
		n += len(p)
	}
	return n
}

// activations holds one sample's layer outputs: a[0] is the input, a[l+1]
// layer l's output (after ReLU for hidden layers).
type activations [][]float64

func (m *MLP) newActivations() activations {
	a := make(activations, len(m.Sizes))
	for i, n := range m.Sizes {
		a[i] = make([]float64, n)
	}
	return a
}

// forward fills a from a[0].
func (m *MLP) forward(a activations) {
	last := len(m.W) - 1
	for l := range m.W {
		in, out := a[l], a[l+1]
		w := m.W[l]
		nIn := len(in)
		for o := range out {
			s := m.B[l][o]
			row := w[o*nIn : (o+1)*nIn]
			for i, x := range in {
				s += row[i] * x
			}
			if l < last && s < 0 {
				s = 0
			}
			out[o] = s
		}
	}
}

// Forward writes the network's outputs for x into dst (allocated when nil)
// and returns it.
func (m *MLP) Forward(dst, x []float64) []float64 {
	a := m.newActivations()
	copy(a[0], x)
	m.forward(a)
	return append(dst[:0], a[len(a)-1]...)
}

// zero sets every parameter to 0.
func (m *MLP) zero() {
	for _, p := range m.Params() {
		clear(p)
	}
}

// huber returns the Huber loss of the error e with threshold delta and its
// derivative.
func huber(e, delta float64) (loss, grad float64) {
	if math.Abs(e) <= delta {
		return 0.5 * e * e, e
	}
	if e > 0 {
		return delta * (e - 0.5*delta), delta
	}
	return delta * (-e - 0.5*delta), -delta
}

// Adam is the Adam optimiser over an MLP's parameters.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	// WeightDecay is AdamW's decoupled decay of the weights (not the
	// biases) per step, as a fraction of LR.
	WeightDecay float64
	m, v        *MLP
	t           int
}

// NewAdam returns Adam with the usual β and ε for a network shaped like net.
func NewAdam(net *MLP, lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: zeroMLP(net.Sizes), v: zeroMLP(net.Sizes)}
}

// Step applies gradient g to net.
func (o *Adam) Step(net, g *MLP) {
	o.t++
	c1 := 1 - math.Pow(o.Beta1, float64(o.t))
	c2 := 1 - math.Pow(o.Beta2, float64(o.t))
	ps, gs, ms, vs := net.Params(), g.Params(), o.m.Params(), o.v.Params()
	for k := range ps {
		p, gr, m, v := ps[k], gs[k], ms[k], vs[k]
		if o.WeightDecay > 0 && k%2 == 0 { // W0, B0, W1, ...: weights only
			f := 1 - o.LR*o.WeightDecay
			for i := range p {
				p[i] *= f
			}
		}
		for i := range p {
			m[i] = o.Beta1*m[i] + (1-o.Beta1)*gr[i]
			v[i] = o.Beta2*v[i] + (1-o.Beta2)*gr[i]*gr[i]
			p[i] -= o.LR * (m[i] / c1) / (math.Sqrt(v[i]/c2) + o.Eps)
		}
	}
}

// clipNorm scales g so that its global L2 norm is at most maxNorm (no-op
// for maxNorm <= 0) and returns the norm before clipping.
func clipNorm(g *MLP, maxNorm float64) float64 {
	s := 0.0
	for _, p := range g.Params() {
		for _, v := range p {
			s += v * v
		}
	}
	n := math.Sqrt(s)
	if maxNorm > 0 && n > maxNorm {
		f := maxNorm / n
		for _, p := range g.Params() {
			for i := range p {
				p[i] *= f
			}
		}
	}
	return n
}

// ArgMax returns the index of the largest value (the first on ties).
func ArgMax(q []float64) int {
	best := 0
	for i, v := range q {
		if v > q[best] {
			best = i
		}
	}
	return best
}
