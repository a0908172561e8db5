package evaluate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// MedianStart forecasts when job id of s would start if submitted at
// s.Now(): the median start (Unix seconds) over f.K rollouts of s, each
// with every live job's run time drawn as in ProbLate (conditioned on
// the time it has run, tied by the copula) and id submitted at now. It
// returns false when in more than half of the rollouts the job never
// starts. s is only cloned; s should be the state just before id's
// submission (sim.RunBefore), so its own trace arrival is dropped from
// the rollouts with the other future ones.
func (f *Forecaster) MedianStart(ctx context.Context, s *sim.Sim, id sim.JobID) (int64, bool, error) {
	k := f.K
	if k <= 0 {
		k = DefaultRollouts
	}
	now := s.Now()
	j := s.Job(id)
	live := s.Live(nil)
	rng := rand.New(rand.NewPCG(f.seedFor(j.Submit, j.Nodes, now)))
	rho := min(max(f.Correlation, 0), 1)
	starts := make([]int64, 0, k)
	for range k {
		zc := rng.NormFloat64()
		over := make([]sim.RunOverride, len(live))
		for i, l := range live {
			lj := s.Job(l.ID)
			el := int64(0)
			if l.Running {
				el = now - l.Start
			}
			z := math.Sqrt(rho)*zc + math.Sqrt(1-rho)*rng.NormFloat64()
			over[i] = sim.RunOverride{ID: l.ID, RunSec: f.RT.At(0.5*math.Erfc(-z/math.Sqrt2), l.ID, el, lj.LimitSec)}
		}
		r := s.Rollout(nil, over)
		q := j
		q.Submit, q.After, q.Cancel = now, sim.NoJob, 0
		add := append(f.resample(r, f.RT, rng, now, now, 0), q) // s holds the trace's jobs under their own IDs
		first, err := r.SubmitBatch(add)
		if err != nil {
			return 0, false, err
		}
		at, err := r.RunUntilStarted(ctx, first+sim.JobID(len(add)-1))
		if errors.Is(err, sim.ErrNeverStarts) {
			continue
		}
		if err != nil {
			return 0, false, err
		}
		starts = append(starts, at)
	}
	if 2*len(starts) <= k {
		return 0, false, nil
	}
	// The never-started rollouts count as the latest: the median of k.
	slices.Sort(starts)
	for len(starts) < k {
		starts = append(starts, math.MaxInt64)
	}
	return starts[(k-1)/2], true, nil
}
