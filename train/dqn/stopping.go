package dqn

import "math"

// Trajectory is one episode's visited decisions, kept for the stopping
// target (Config.Target "stopping"). Because waiting does not change the
// cluster and every visited decision's submit outcome is known
// (Config.AllActions), the value of waiting at decision k under a stopping
// rule is the realised reward at the first later decision where the rule
// submits: the Longstaff–Schwartz estimator of optimal stopping. It uses
// the target network only to decide where to stop, never as the value, so
// the maximisation bias that a bootstrapped max accumulates along a chain of
// ~290 wait decisions does not arise.
type Trajectory struct {
	S     [][]float64 // standardised states of the visited decisions
	R     []float64   // reward of submitting at each visited decision
	Final bool        // the last state is P's end (Q is submitted whatever the action)
	// Shaped says the network estimates Q − Φ, Φ the reward of
	// submitting (Agent.Shaped): an estimate of waiting at k is
	// q(wait) + R[k].
	Shaped bool
	yWait  []float64 // target of waiting at each decision (Refresh)
}

// Refresh recomputes the wait targets with net's greedy stopping rule; wt is
// net.transposeWeights and b scratch (grown as needed). With net nil the
// rule is the reactive one (never submit before P's end), the policy the
// iteration starts from: the target of waiting is then the reward at P's
// end, or, in an episode the agent ended early, its last reward.
func (t *Trajectory) Refresh(net *MLP, wt [][]float64, b *batch) *batch {
	n := len(t.S)
	if n == 0 {
		return b
	}
	if cap(t.yWait) < n {
		t.yWait = make([]float64, n)
	}
	t.yWait = t.yWait[:n]
	if net == nil {
		for k := range t.yWait {
			t.yWait[k] = t.R[n-1]
		}
		return b
	}
	return t.refreshGreedy(net, wt, b)
}

func (t *Trajectory) refreshGreedy(net *MLP, wt [][]float64, b *batch) *batch {
	n := len(t.S)
	if n == 0 {
		return b
	}
	if b == nil || b.cap < n {
		b = newBatch(net.Sizes, max(n, 64))
	}
	b.resize(n)
	for i, s := range t.S {
		copy(b.input(i), s)
	}
	net.forwardBatch(b, wt)
	k := n - 1
	q := b.output(k)
	var from float64 // the value of arriving at decision k+1... before deciding
	switch {
	case t.Final:
		t.yWait[k] = t.R[k]
		from = t.R[k]
	default:
		// The agent submitted at k: waiting there is unobserved, so its
		// value is the target network's estimate.
		w := q[ActionWait]
		if t.Shaped {
			w += t.R[k]
		}
		t.yWait[k] = w
		from = t.R[k]
		if q[ActionWait] > q[ActionSubmit] {
			from = w
		}
	}
	for u := k - 1; u >= 0; u-- {
		t.yWait[u] = from
		q := b.output(u)
		if q[ActionSubmit] > q[ActionWait] {
			from = t.R[u]
		}
	}
	return b
}

// waitTarget returns the refreshed target of waiting at decision k (NaN
// before the first Refresh).
func (t *Trajectory) waitTarget(k int) float64 {
	if k >= len(t.yWait) {
		return math.NaN()
	}
	return t.yWait[k]
}
