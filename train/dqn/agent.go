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
	// Traj and K locate a wait transition in its episode for the
	// stopping target (nil otherwise).
	Traj *Trajectory
	K    int
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
	// Stopping makes the target of a wait transition that has a Traj its
	// trajectory's stopping-rule value (Trajectory) instead of the Double
	// DQN bootstrap.
	Stopping bool
	// Shaped (with Stopping) learns Q − Φ, Φ(s) the reward of submitting
	// at s (Config.Shaping "submit"): the target of a terminal
	// transition is 0, that of waiting at decision k of a trajectory its
	// stopping-rule value less the trajectory's submit reward at k.
	Shaped bool

	trajs      []*Trajectory // live trajectories, oldest first (Stopping)
	trajStates int
	trajBatch  *batch
	synced     bool // the target network has been synchronised once

	grad             *MLP
	cur, next, nextT *batch // scratch: batch states, next states (online, target)
	// onlineT and targetT are the networks' transposed weights
	// (transposeWeights), refreshed whenever the weights change.
	onlineT, targetT [][]float64
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
	return a, nil
}

// Update takes one gradient step on batch and returns the mean Huber loss
// and the gradient norm before clipping. The target of a transition is
// R + γ·Q_target(S2, argmax_a Q_online(S2, a)) (R alone when Done).
func (a *Agent) Update(batch []Transition) (loss, gradNorm float64) {
	a.grad.zero()
	n := len(batch)
	if a.cur == nil || a.cur.cap < n {
		a.cur, a.next, a.nextT = newBatch(a.Online.Sizes, n), newBatch(a.Online.Sizes, n), newBatch(a.Online.Sizes, n)
		a.nextT.act[0] = a.next.act[0] // both networks read the same next states
	}
	boot := func(t Transition) bool { return !t.Done && !(a.Stopping && t.Traj != nil) }
	k := 0
	for _, t := range batch {
		if boot(t) {
			copy(a.next.input(k), t.S2)
			k++
		}
	}
	a.next.resize(k)
	a.nextT.resize(k)
	if a.onlineT == nil {
		a.onlineT, a.targetT = a.Online.transposeWeights(nil), a.Target.transposeWeights(nil)
	}
	if k > 0 {
		a.Online.forwardBatch(a.next, a.onlineT)
		a.Target.forwardBatch(a.nextT, a.targetT)
	}
	a.cur.resize(n)
	for i, t := range batch {
		copy(a.cur.input(i), t.S)
	}
	a.Online.forwardBatch(a.cur, a.onlineT)
	k = 0
	inv := 1 / float64(n)
	for i, t := range batch {
		y := t.R
		switch {
		case a.Shaped && t.Done:
			y = 0
		case a.Shaped && !t.Done && t.Traj != nil:
			y = t.Traj.waitTarget(t.K) - t.Traj.R[t.K]
		case boot(t):
			y += a.Gamma * a.nextT.output(k)[ArgMax(a.next.output(k))]
			k++
		case !t.Done:
			y += t.Traj.waitTarget(t.K)
		}
		out := a.cur.output(i)
		l, g := huber(out[t.A]-y, a.HuberDelta)
		loss += l * inv
		d := a.cur.dOut(i)
		clear(d)
		d[t.A] = g * inv
	}
	a.Online.backwardBatch(a.grad, a.cur)
	gradNorm = clipNorm(a.grad, a.ClipNorm)
	a.Opt.Step(a.Online, a.grad)
	a.onlineT = a.Online.transposeWeights(a.onlineT)
	a.Steps++
	if a.TargetSync > 0 && a.Steps%a.TargetSync == 0 {
		a.Target.CopyFrom(a.Online)
		a.targetT = a.Target.transposeWeights(a.targetT)
		for _, t := range a.trajs {
			a.trajBatch = t.Refresh(a.Target, a.targetT, a.trajBatch)
		}
		a.synced = true
	}
	return loss, gradNorm
}

// AddTrajectory refreshes t's wait targets with the target network and
// keeps it for refreshes at every target synchronisation, forgetting the
// oldest trajectories beyond capacity states (the replay buffer's size).
func (a *Agent) AddTrajectory(t *Trajectory, capacity int) {
	if a.onlineT == nil {
		a.onlineT, a.targetT = a.Online.transposeWeights(nil), a.Target.transposeWeights(nil)
	}
	t.Shaped = a.Shaped
	if a.synced {
		a.trajBatch = t.Refresh(a.Target, a.targetT, a.trajBatch)
	} else {
		t.Refresh(nil, nil, nil) // the untrained network's rule would stop at random
	}
	a.trajs = append(a.trajs, t)
	a.trajStates += len(t.S)
	for len(a.trajs) > 1 && a.trajStates > capacity {
		a.trajStates -= len(a.trajs[0].S)
		a.trajs[0] = nil
		a.trajs = a.trajs[1:]
	}
}

// Stats are standardisation statistics: x' = clip((x - Mean) / Std), NaN -> 0.
type Stats struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
	// Clip bounds the standardised values to [-Clip, Clip] (0: none), so
	// a queue busier than any seen in training cannot push the network far
	// outside the inputs it was fitted on.
	Clip float64 `json:"clip,omitempty"`
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
		z := (v - s.Mean[j]) / s.Std[j]
		if s.Clip > 0 {
			z = min(max(z, -s.Clip), s.Clip)
		}
		dst[j] = z
	}
	return dst
}
