package dqn

import (
	"context"
	"math"
	"slices"

	"github.com/mirage-hpc/mirage/features"
)

// validate is Train's validation step after episode ep, when one is due
// (every ValidEvery episodes, with held-out windows): it replays the
// policy net greedily on the held-out windows, sets cp.ValidReturn, keeps
// the net when it is the best so far and otherwise counts one more
// validation without improvement.
func (t *trainer) validate(ctx context.Context, ep int, cp *CurvePoint) error {
	if len(t.res.ValidStart) == 0 || t.cfg.ValidEvery <= 0 || (ep+1)%t.cfg.ValidEvery != 0 {
		return nil
	}
	v, err := Validate(ctx, t.env, t.policy(), t.st, t.res.ValidStart)
	if err != nil {
		return err
	}
	cp.ValidReturn = v
	if v > t.res.BestValid {
		t.res.BestValid, t.best, t.bad = v, t.policy().Clone(), 0
	} else {
		t.bad++
	}
	return nil
}

// outOfPatience reports whether early stopping fires: Patience (> 0)
// validations in a row without improvement.
func (t *trainer) outOfPatience() bool { return t.cfg.Patience > 0 && t.bad >= t.cfg.Patience }

// BiasStarts returns the window starts ChooseBias replays: BiasEpisodes
// (or ValidEpisodes) starts spread over the held-out segments of env's
// training period, the segments early stopping validates on.
func BiasStarts(env *Env, cfg Config) []int64 {
	c := cfg
	if c.BiasEpisodes > 0 {
		c.ValidEpisodes = c.BiasEpisodes
	}
	first, last := env.Span()
	starts, _ := heldOut(first, last, c, env.opts.WorkloadSec)
	return slices.Compact(starts)
}

// heldOut returns the window starts of the held-out validation windows and
// the intervals of window starts training must avoid: the training period
// [first, last] is cut into ValidBlocks blocks; the last ValidShare/blocks
// of each block is held out, and training windows keep workload (the span
// of trace submissions a window takes part in) away from it on both sides,
// so no held-out job is in a training window. ValidEpisodes starts are
// spread evenly over the held-out segments.
func heldOut(first, last int64, cfg Config, workload int64) (starts []int64, excluded [][2]int64) {
	if cfg.ValidEpisodes <= 0 || cfg.ValidShare <= 0 || last <= first {
		return nil, nil
	}
	blocks := max(cfg.ValidBlocks, 1)
	span := last - first
	segLen := int64(float64(span) * cfg.ValidShare / float64(blocks))
	type seg struct{ lo, hi int64 }
	var segs []seg
	for b := range blocks {
		hi := first + span*int64(b+1)/int64(blocks)
		segs = append(segs, seg{hi - segLen, hi})
		excluded = append(excluded, [2]int64{hi - segLen - workload, hi + workload})
	}
	for i := range cfg.ValidEpisodes {
		s := segs[i%blocks]
		k := int64(i / blocks)
		n := int64((cfg.ValidEpisodes - i%blocks + blocks - 1) / blocks) // starts in this segment
		t := s.lo + (s.hi-s.lo)*(k+1)/(n+1)
		starts = append(starts, t-(t-first)%cfg.StartStep)
	}
	slices.Sort(starts)
	return starts, excluded
}

// Validate replays the greedy policy of net on each start, for every chain
// size, and returns the mean terminal reward.
func Validate(ctx context.Context, env *Env, net *MLP, st Stats, starts []int64) (float64, error) {
	raw := make([]float64, features.NumFeatures())
	var s, q []float64
	sum, n := 0.0, 0
	for _, start := range starts {
		for _, nodes := range env.ChainNodes() {
			if err := env.Reset(ctx, start, nodes, raw); err != nil {
				return 0, err
			}
			for {
				s = st.Apply(s, raw)
				q = net.Forward(q, s)
				r, done, err := env.Step(ctx, ArgMax(q), raw)
				if err != nil {
					return 0, err
				}
				if done {
					sum += r
					n++
					break
				}
			}
		}
	}
	return sum / float64(max(n, 1)), nil
}

// Bounds returns the mean returns of the reactive policy (submit at P's
// end) and of the hindsight oracle (the best decision time) over starts,
// for every chain size.
func Bounds(ctx context.Context, env *Env, starts []int64) (reactive, oracle float64, err error) {
	raw := make([]float64, features.NumFeatures())
	n := 0
	for _, start := range starts {
		for _, nodes := range env.ChainNodes() {
			if err := env.Reset(ctx, start, nodes, raw); err != nil {
				return 0, 0, err
			}
			best := math.Inf(-1)
			for {
				if !env.Last() {
					r, _, err := env.SubmitOutcome(ctx)
					if err != nil {
						return 0, 0, err
					}
					best = max(best, r)
				}
				r, done, err := env.Step(ctx, ActionWait, raw)
				if err != nil {
					return 0, 0, err
				}
				if done {
					reactive += r
					oracle += max(best, r)
					n++
					break
				}
			}
		}
	}
	n = max(n, 1)
	return reactive / float64(n), oracle / float64(n), nil
}
