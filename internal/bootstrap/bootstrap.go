// Package bootstrap holds the percentile bootstrap over windows that the
// reports' and the lifetimes' confidence intervals share: deterministic
// with the seed.
package bootstrap

import (
	"math/rand/v2"
	"slices"
)

// Interval is a point estimate with a bootstrap confidence interval.
type Interval struct {
	Point float64 `json:"point"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// N is the number of windows the estimate is over.
	N int `json:"n"`
}

// Percentile estimates stat over n windows and its percentile interval
// at level (e.g. 0.95): stat is evaluated on all windows (idx = 0..n-1)
// for the point, then on resamples drawn with replacement (reps of them)
// from a PCG source seeded with seed, and the interval is the
// (1−level)/2 and (1+level)/2 quantiles of the resampled values, widened
// to contain the point estimate (it always lies within [Lo, Hi]). The
// result depends only on n, stat, reps, level and seed. With n = 0 every
// value is stat(nil).
func Percentile(n int, stat func(idx []int) float64, reps int, level float64, seed uint64) Interval {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	iv := Interval{Point: stat(all), N: n}
	iv.Lo, iv.Hi = iv.Point, iv.Point
	if n == 0 || reps <= 0 {
		return iv
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d69726167652d62)) // "mirage-b"
	vals := make([]float64, reps)
	idx := make([]int, n)
	for r := range vals {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		vals[r] = stat(idx)
	}
	slices.Sort(vals)
	q := func(p float64) float64 {
		k := int(p * float64(reps-1))
		return vals[min(max(k, 0), reps-1)]
	}
	iv.Lo, iv.Hi = min(q((1-level)/2), iv.Point), max(q((1+level)/2), iv.Point)
	return iv
}
