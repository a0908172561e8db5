package dqn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMLP_GradientCheck compares backward with central finite differences
// of the Huber loss on the chosen action, for every parameter.
func TestMLP_GradientCheck(t *testing.T) {
	m, err := NewMLP([]int{5, 7, 6, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for l := range m.B { // non-zero biases exercise their gradients
		for i := range m.B[l] {
			m.B[l][i] = 0.1 * r.NormFloat64()
		}
	}
	type sample struct {
		x []float64
		a int
		y float64
	}
	var batch []sample
	for k := range 4 {
		x := make([]float64, 5)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		batch = append(batch, sample{x, k % 2, 3 * r.NormFloat64()})
	}
	lossOf := func() float64 {
		s := 0.0
		for _, b := range batch {
			q := m.Forward(nil, b.x)
			l, _ := huber(q[b.a]-b.y, 1)
			s += l
		}
		return s
	}
	g := zeroMLP(m.Sizes)
	b := newBatch(m.Sizes, len(batch))
	for i, s := range batch {
		copy(b.input(i), s.x)
	}
	m.forwardBatch(b, m.transposeWeights(nil))
	for i, s := range batch {
		out := b.output(i)
		if want := m.Forward(nil, s.x); math.Abs(want[0]-out[0])+math.Abs(want[1]-out[1]) > 1e-12 {
			t.Fatalf("sample %d: batch forward %v, single forward %v", i, out, want)
		}
		_, dg := huber(out[s.a]-s.y, 1)
		d := b.dOut(i)
		clear(d)
		d[s.a] = dg
	}
	m.backwardBatch(g, b)
	const h = 1e-6
	ps, gs := m.Params(), g.Params()
	checked := 0
	for k := range ps {
		for i := range ps[k] {
			old := ps[k][i]
			ps[k][i] = old + h
			up := lossOf()
			ps[k][i] = old - h
			down := lossOf()
			ps[k][i] = old
			num := (up - down) / (2 * h)
			if diff := math.Abs(num - gs[k][i]); diff > 1e-5*math.Max(1, math.Abs(num)) {
				t.Errorf("param %d[%d]: backward %.8g, finite difference %.8g", k, i, gs[k][i], num)
			}
			checked++
		}
	}
	if checked != m.NumParams() {
		t.Fatalf("checked %d of %d params", checked, m.NumParams())
	}
}

func TestHuber(t *testing.T) {
	for _, c := range []struct{ e, loss, grad float64 }{
		{0.5, 0.125, 0.5}, {-0.5, 0.125, -0.5}, {3, 2.5, 1}, {-3, 2.5, -1},
	} {
		l, g := huber(c.e, 1)
		if l != c.loss || g != c.grad {
			t.Errorf("huber(%g) = %g, %g; want %g, %g", c.e, l, g, c.loss, c.grad)
		}
	}
}

func TestClipNorm(t *testing.T) {
	g := zeroMLP([]int{1, 2})
	g.W[0][0], g.W[0][1] = 3, 4
	if n := clipNorm(g, 1); n != 5 {
		t.Fatalf("norm %g, want 5", n)
	}
	if math.Abs(g.W[0][0]-0.6) > 1e-12 || math.Abs(g.W[0][1]-0.8) > 1e-12 {
		t.Fatalf("clipped to %v", g.W[0])
	}
}

// TestAgent_LearnsBandit: a one-step problem whose submit reward depends on
// the sign of the state; Double DQN with Adam must learn it.
func TestAgent_LearnsBandit(t *testing.T) {
	a, err := NewAgent([]int{1, 16, 2}, 1, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	buf := NewReplay(1000)
	for range 1000 {
		x := 2*r.Float64() - 1
		act := r.IntN(2)
		rew := 0.0
		if act == ActionSubmit {
			rew = x
		}
		buf.Add(Transition{S: []float64{x}, A: act, R: rew, Done: true})
	}
	var batch []Transition
	for range 500 {
		batch = buf.Sample(batch[:0], 32, r)
		a.Update(batch)
	}
	for _, x := range []float64{-0.8, -0.3, 0.3, 0.8} {
		q := a.Online.Forward(nil, []float64{x})
		if want := map[bool]int{true: ActionSubmit, false: ActionWait}[x > 0]; ArgMax(q) != want {
			t.Errorf("x=%g: Q=%v, want action %d", x, q, want)
		}
	}
}

func TestStats(t *testing.T) {
	s := NewStats([][]float64{{1, 5, math.NaN()}, {3, 5, math.NaN()}}, 3)
	got := s.Apply(nil, []float64{3, 7, math.NaN()})
	if math.Abs(got[0]-1/math.Sqrt2) > 1e-12 || got[1] != 2 || got[2] != 0 {
		t.Fatalf("Apply = %v (stats %+v)", got, s)
	}
}

func TestEpsilon(t *testing.T) {
	e := Epsilon{Start: 1, End: 0.1, Steps: 10}
	if e.At(0) != 1 || math.Abs(e.At(5)-0.55) > 1e-12 || e.At(10) != 0.1 || e.At(99) != 0.1 {
		t.Fatal(e.At(0), e.At(5), e.At(10))
	}
}

// TestAdam_WeightDecay: with a zero gradient, AdamW shrinks the weights by
// 1 − LR·WeightDecay per step and leaves the biases alone.
func TestAdam_WeightDecay(t *testing.T) {
	m, err := NewMLP([]int{3, 4, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for l := range m.B {
		for i := range m.B[l] {
			m.B[l][i] = 0.5
		}
	}
	before := m.Clone()
	o := NewAdam(m, 0.1)
	o.WeightDecay = 0.5
	o.Step(m, zeroMLP(m.Sizes))
	for l := range m.W {
		for i, w := range m.W[l] {
			if want := before.W[l][i] * 0.95; math.Abs(w-want) > 1e-15 {
				t.Fatalf("weight %d[%d] = %v, want %v", l, i, w, want)
			}
		}
		for i, b := range m.B[l] {
			if b != 0.5 {
				t.Fatalf("bias %d[%d] = %v, want 0.5 (no decay)", l, i, b)
			}
		}
	}
}

func TestMLP_Blend(t *testing.T) {
	a, _ := NewMLP([]int{2, 3, 2}, 1)
	b, _ := NewMLP([]int{2, 3, 2}, 2)
	want := a.Clone()
	a.blend(b, 0.25)
	for l := range a.W {
		for i := range a.W[l] {
			if w := 0.75*want.W[l][i] + 0.25*b.W[l][i]; math.Abs(a.W[l][i]-w) > 1e-15 {
				t.Fatalf("W%d[%d] = %v, want %v", l, i, a.W[l][i], w)
			}
		}
	}
}
