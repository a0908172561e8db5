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
	switch {
	case v > t.res.BestValid:
		t.res.BestValid, t.best, t.bad = v, t.policy().Clone(), 0
	case ep+1 >= t.epsEpisodes():
		// With EpsShare, the validations while ε still decays do not
		// count: the plateau is the greedy policy's.
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
	starts, _ := envHeldOut(env, c)
	return slices.Compact(starts)
}

// envHeldOut is heldOut over env's training period: on the protocol's
// grid of window starts with ValidOnGrid (heldOutOnGrid), else on the
// StartStep grid.
func envHeldOut(env *Env, cfg Config) (starts []int64, excluded [][2]int64) {
	first, last := env.Span()
	if cfg.ValidOnGrid {
		return heldOutOnGrid(first, last, env.opts.IntervalSec, cfg, env.opts.WorkloadSec)
	}
	return heldOut(first, last, cfg, env.opts.WorkloadSec)
}

// segment is a held-out interval of window starts, [lo, hi] Unix seconds.
type segment struct{ lo, hi int64 }

// heldOutSegments cuts the training period [first, last] into
// ValidBlocks blocks and holds out the last ValidShare/blocks of each; it
// returns the segments and the intervals of window starts training must
// avoid: workload (the span of trace submissions a window takes part in)
// on both sides of each segment, so no held-out job is in a training
// window.
//
// With ValidOnGrid the segments are centred in their blocks instead: none
// at the period's edges, so that the held-out windows sample the whole
// period as evenly as its blocks (on LS6 the last days of the training
// period are its busiest: a segment there makes the held-out windows'
// reactive interruption several times the validation months').
func heldOutSegments(first, last int64, cfg Config, workload int64) (segs []segment, excluded [][2]int64) {
	if cfg.ValidEpisodes <= 0 || cfg.ValidShare <= 0 || last <= first {
		return nil, nil
	}
	blocks := max(cfg.ValidBlocks, 1)
	span := last - first
	segLen := int64(float64(span) * cfg.ValidShare / float64(blocks))
	for b := range blocks {
		hi := first + span*int64(b+1)/int64(blocks)
		if cfg.ValidOnGrid {
			hi = first + span*int64(2*b+1)/int64(2*blocks) + segLen/2
		}
		segs = append(segs, segment{hi - segLen, hi})
		excluded = append(excluded, [2]int64{hi - segLen - workload, hi + workload})
	}
	return segs, excluded
}

// heldOut returns the window starts of the held-out validation windows and
// the intervals of window starts training must avoid (heldOutSegments).
// ValidEpisodes starts are spread evenly over the held-out segments, on
// the StartStep grid.
func heldOut(first, last int64, cfg Config, workload int64) (starts []int64, excluded [][2]int64) {
	segs, excluded := heldOutSegments(first, last, cfg, workload)
	blocks := len(segs)
	if blocks == 0 {
		return nil, nil
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

// heldOutOnGrid is heldOut with the held-out windows drawn as the
// protocol draws its own: the window starts first + k·interval (interval
// seconds > 0) that lie in the held-out segments, all of them when they
// are at most ValidEpisodes, else ValidEpisodes of them evenly spaced in
// time order (so the same hours of the day and days of the week are
// sampled as in the validation period's windows).
func heldOutOnGrid(first, last, interval int64, cfg Config, workload int64) (starts []int64, excluded [][2]int64) {
	segs, excluded := heldOutSegments(first, last, cfg, workload)
	if len(segs) == 0 || interval <= 0 {
		return nil, excluded
	}
	var all []int64
	for t := first; t <= last; t += interval {
		if slices.ContainsFunc(segs, func(s segment) bool { return t >= s.lo && t <= s.hi }) {
			all = append(all, t)
		}
	}
	n := cfg.ValidEpisodes
	if len(all) <= n {
		return all, excluded
	}
	for i := range n {
		starts = append(starts, all[i*len(all)/n])
	}
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
