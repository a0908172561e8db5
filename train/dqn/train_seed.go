package dqn

import (
	"context"
	"time"

	"github.com/mirage-hpc/mirage/features"
)

// rawTransition is a transition of a wait-only episode in raw features
// (standardised once the statistics are known): the decision k of
// wait-only episode ep.
type rawTransition struct {
	s, s2 []float64
	a     int
	r     float64
	done  bool
	ep, k int
}

// seed is Train's first step: it plays StatsEps wait-only episodes,
// evenly spaced over the training windows; their states give the
// standardisation statistics and their transitions seed the replay
// buffer (and, for the stopping target, the agent's trajectories).
func (t *trainer) seed(ctx context.Context) error {
	t0 := time.Now()
	var rows [][]float64
	var pending []rawTransition
	n := t.cfg.StatsEps
	for i := range n {
		// Evenly spaced over the training windows (a few random windows
		// can all be idle, and a busy one then standardises to |z| ~ 1000).
		start := t.starts[(len(t.starts)-1)*i/max(n-1, 1)]
		nodes := t.nodes[i%len(t.nodes)]
		if err := t.env.Reset(ctx, start, nodes, t.raw); err != nil {
			return err
		}
		var err error
		if rows, pending, err = t.waitEpisode(ctx, i, rows, pending); err != nil {
			return err
		}
	}
	t.res.Stats = standardisation(rows, features.NumFeatures())
	t.res.Stats.Clip = t.cfg.Clip
	t.st = t.res.Stats
	t.buf = NewReplay(t.cfg.ReplaySize)
	t.seedReplay(pending)
	t.res.EnvSec += time.Since(t0).Seconds()
	return nil
}

// waitEpisode plays wait-only episode ep (the environment just reset) to
// P's end and returns rows and pending with its states (raw) and its
// transitions appended: every wait, the submit outcome of every decision
// before the last with AllActions, and both actions at P's end.
func (t *trainer) waitEpisode(ctx context.Context, ep int, rows [][]float64, pending []rawTransition) ([][]float64, []rawTransition, error) {
	env, raw := t.env, t.raw
	for k := 0; ; k++ {
		s := append([]float64(nil), raw...)
		rows = append(rows, s)
		if t.cfg.AllActions && !env.Last() {
			rs, _, err := env.SubmitOutcome(ctx)
			if err != nil {
				return nil, nil, err
			}
			pending = append(pending, rawTransition{s: s, a: ActionSubmit, r: rs, done: true, ep: ep, k: k})
		}
		r, done, err := env.Step(ctx, ActionWait, raw)
		if err != nil {
			return nil, nil, err
		}
		tr := rawTransition{s: s, a: ActionWait, r: r, done: done, ep: ep, k: k}
		if done {
			// At P's end Q is submitted whatever the action: both
			// actions end the episode with this reward.
			return rows, append(pending, tr, rawTransition{s: s, a: ActionSubmit, r: r, done: true, ep: ep, k: k}), nil
		}
		tr.s2 = append([]float64(nil), raw...)
		pending = append(pending, tr)
	}
}

// standardisation returns the statistics of rows (dim features each);
// without rows, mean 0 and standard deviation 1.
func standardisation(rows [][]float64, dim int) Stats {
	if len(rows) > 0 {
		return NewStats(rows, dim)
	}
	st := Stats{Mean: make([]float64, dim), Std: make([]float64, dim)}
	for i := range st.Std {
		st.Std[i] = 1
	}
	return st
}

// seedReplay standardises the wait-only transitions into the replay
// buffer. For the stopping target it first gives the agent each
// episode's trajectory: every state is visited once, with its submit
// transition (or the forced end) carrying its reward, and each wait
// transition before the end points into it.
func (t *trainer) seedReplay(pending []rawTransition) {
	var seed []Transition
	var trajs []*Trajectory
	for _, p := range pending {
		tr := Transition{S: t.st.Apply(nil, p.s), A: p.a, R: p.r, Done: p.done}
		if !p.done {
			tr.S2 = t.st.Apply(nil, p.s2)
		}
		if t.stopping {
			for len(trajs) <= p.ep {
				trajs = append(trajs, &Trajectory{Final: true})
			}
			tj := trajs[p.ep]
			if p.a == ActionSubmit {
				tj.S, tj.R = append(tj.S, tr.S), append(tj.R, p.r)
			} else if !p.done {
				tr.Traj, tr.K = tj, p.k
			}
		}
		seed = append(seed, tr)
	}
	for _, tj := range trajs {
		t.agent.AddTrajectory(tj, t.cfg.ReplaySize)
	}
	for _, tr := range seed {
		t.buf.Add(tr)
	}
}
