package dqn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Actions.
const (
	ActionWait   = 0
	ActionSubmit = 1
	NumActions   = 2
)

// Transition is one step of experience: state S, action A, reward R, next
// state S2 (nil when Done).
type Transition struct {
	S    []float64
	A    int
	R    float64
	S2   []float64
	Done bool
}

// Replay is a fixed-capacity ring buffer of transitions.
type Replay struct {
	buf  []Transition
	next int
	full bool
}

// NewReplay returns an empty buffer of the given capacity.
func NewReplay(capacity int) *Replay { return &Replay{buf: make([]Transition, max(capacity, 1))} }

// Add stores t, evicting the oldest transition when full.
func (r *Replay) Add(t Transition) {
	r.buf[r.next] = t
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// Len returns the number of stored transitions.
func (r *Replay) Len() int {
	if r.full {
		return len(r.buf)
	}
	return r.next
}

// Sample appends n transitions drawn uniformly with replacement to dst.
func (r *Replay) Sample(dst []Transition, n int, rng *rand.Rand) []Transition {
	for range n {
		dst = append(dst, r.buf[rng.IntN(r.Len())])
	}
	return dst
}

// Epsilon is a linear ε-greedy schedule from Start to End over Steps
// decisions, then End.
type Epsilon struct {
	Start, End float64
	Steps      int
}

// At returns ε after step decisions.
func (e Epsilon) At(step int) float64 {
	if e.Steps <= 0 || step >= e.Steps {
		return e.End
	}
	return e.Start + (e.End-e.Start)*float64(step)/float64(e.Steps)
}

// Agent is a Double DQN learner.
type Agent struct {
	Online, Target *MLP
	Opt            *Adam
	Gamma          float64
	HuberDelta     float64
	ClipNorm       float64
	TargetSync     int // gradient steps between target synchronisations
	Steps          int // gradient steps taken

	grad            *MLP
	acts, scratch   activations
	target2, online []float64
}

// NewAgent returns an agent whose online and target networks are equal.
func NewAgent(sizes []int, seed uint64, lr float64) (*Agent, error) {
	if sizes[len(sizes)-1] != NumActions {
		return nil, fmt.Errorf("dqn: output size %d, want %d", sizes[len(sizes)-1], NumActions)
	}
	net, err := NewMLP(sizes, seed)
	if err != nil {
		return nil, err
	}
	a := &Agent{Online: net, Target: net.Clone(), Opt: NewAdam(net, lr), Gamma: 0.998, HuberDelta: 1,
		ClipNorm: 10, TargetSync: 500}
	a.grad = zeroMLP(sizes)
	a.acts, a.scratch = net.newActivations(), net.newActivations()
	return a, nil
}

// Update takes one gradient step on batch and returns the mean Huber loss
// and the gradient norm before clipping. The target of a transition is
// R + γ·Q_target(S2, argmax_a Q_online(S2, a)) (R alone when Done).
func (a *Agent) Update(batch []Transition) (loss, gradNorm float64) {
	a.grad.zero()
	n := float64(len(batch))
	for _, t := range batch {
		y := t.R
		if !t.Done {
			a.online = a.Online.Forward(a.online, t.S2)
			a.target2 = a.Target.Forward(a.target2, t.S2)
			y += a.Gamma * a.target2[ArgMax(a.online)]
		}
		copy(a.acts[0], t.S)
		a.Online.forward(a.acts)
		out := a.acts[len(a.acts)-1]
		l, g := huber(out[t.A]-y, a.HuberDelta)
		loss += l / n
		d := make([]float64, len(out))
		d[t.A] = g / n
		a.Online.backward(a.grad, a.acts, d, a.scratch)
	}
	gradNorm = clipNorm(a.grad, a.ClipNorm)
	a.Opt.Step(a.Online, a.grad)
	a.Steps++
	if a.TargetSync > 0 && a.Steps%a.TargetSync == 0 {
		a.Target.CopyFrom(a.Online)
	}
	return loss, gradNorm
}

// Stats are standardisation statistics: x' = (x - Mean) / Std, NaN -> 0.
type Stats struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// NewStats computes the statistics of rows, ignoring NaNs; a constant or
// all-NaN column gets Std 1.
func NewStats(rows [][]float64, dim int) Stats {
	s := Stats{Mean: make([]float64, dim), Std: make([]float64, dim)}
	for j := range dim {
		var n, mean, m2 float64
		for _, r := range rows {
			x := r[j]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			n++
			d := x - mean
			mean += d / n
			m2 += d * (x - mean)
		}
		s.Mean[j] = mean
		sd := 0.0
		if n > 1 {
			sd = math.Sqrt(m2 / (n - 1))
		}
		if !(sd > 1e-12) {
			sd = 1
		}
		s.Std[j] = sd
	}
	return s
}

// Apply writes the standardised x into dst (allocated when nil) and
// returns it; NaN and infinite values become 0 (the mean).
func (s Stats) Apply(dst, x []float64) []float64 {
	dst = append(dst[:0], x...)
	for j, v := range dst {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dst[j] = 0
			continue
		}
		dst[j] = (v - s.Mean[j]) / s.Std[j]
	}
	return dst
}
