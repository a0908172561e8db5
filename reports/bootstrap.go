package reports

import "github.com/mirage-hpc/mirage/internal/bootstrap"

// Interval is a point estimate with a bootstrap confidence interval
// (bootstrap.Interval).
type Interval = bootstrap.Interval

// Bootstrap is bootstrap.Percentile: stat over n windows and its
// percentile interval at level from reps resamples seeded with seed.
func Bootstrap(n int, stat func(idx []int) float64, reps int, level float64, seed uint64) Interval {
	return bootstrap.Percentile(n, stat, reps, level, seed)
}

// meanOf returns the mean of v over idx (0 for no index).
func meanOf(v []float64, idx []int) float64 {
	if len(idx) == 0 {
		return 0
	}
	var s float64
	for _, i := range idx {
		s += v[i]
	}
	return s / float64(len(idx))
}

// reductionOf returns 1 − Σ a / Σ ref over idx (0 when Σ ref is 0):
// the interruption reduction against the reactive policy.
func reductionOf(a, ref []float64, idx []int) float64 {
	var sa, sr float64
	for _, i := range idx {
		sa += a[i]
		sr += ref[i]
	}
	if sr == 0 {
		return 0
	}
	return 1 - sa/sr
}
