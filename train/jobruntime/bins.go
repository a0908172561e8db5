package jobruntime

import (
	"math"
	"sort"
)

// DefaultEdges are the ratio bin edges: bin b is [Edges[b], Edges[b+1]).
// The first bin, [0, 1e-6), holds exactly the jobs that ran 0 s (13 % of
// LS6's; run times are whole seconds, so no other job's ratio is that
// small under a limit up to 11 days) and is a point mass at 0; the last,
// [0.995, 1], holds the jobs that ran to their limit and is a point mass
// at 1. The edges are finer near 0, where a short job's ratio is small,
// so a relative error stays small; within the other bins the ratio is
// log-uniform (see quantile).
var DefaultEdges = []float64{0, 1e-6, 1e-4, 3e-4, 0.001, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
	0.6, 0.7, 0.8, 0.9, 0.97, AtLimitRatio, 1}

// Levels are the quantile levels Predict returns (10, 50 and 90 %).
var Levels = [3]float64{0.1, 0.5, 0.9}

// CalibrationLevels are the levels of the calibration error and plot.
var CalibrationLevels = []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}

// binOf returns the bin of ratio r under edges (r is clamped to [0, 1]).
func binOf(edges []float64, r float64) int {
	nb := len(edges) - 1
	if r >= edges[nb-1] {
		return nb - 1
	}
	b := sort.SearchFloat64s(edges, r) // first edge >= r
	if b < len(edges) && edges[b] == r {
		return min(b, nb-1)
	}
	return max(0, b-1)
}

// quantile returns the ratio at level q of the distribution p over the
// bins of edges (p sums to 1): log-uniform within a bin [lo, hi)
// (ratio lo*(hi/lo)^f at the bin's fraction f), the first bin a point
// mass at 0 and the last a point mass at 1.
func quantile(edges []float64, p []float32, q float64) float64 {
	nb := len(edges) - 1
	var c float64
	for b := range nb {
		pb := float64(p[b])
		if c+pb >= q && pb > 0 {
			switch b {
			case 0:
				return 0
			case nb - 1:
				return 1
			}
			f := (q - c) / pb
			return edges[b] * math.Pow(edges[b+1]/edges[b], f)
		}
		c += pb
	}
	return 1
}

// isotonic replaces cdf (the CDF at successive edges) by its
// least-squares nondecreasing fit within [0, 1] (pool adjacent
// violators), in place.
func isotonic(cdf []float64) {
	type block struct {
		sum float64
		n   int
	}
	var bs []block
	for _, v := range cdf {
		bs = append(bs, block{v, 1})
		for len(bs) > 1 && bs[len(bs)-2].sum/float64(bs[len(bs)-2].n) > bs[len(bs)-1].sum/float64(bs[len(bs)-1].n) {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			bs = append(bs[:len(bs)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	i := 0
	for _, b := range bs {
		v := math.Min(1, math.Max(0, b.sum/float64(b.n)))
		for range b.n {
			cdf[i] = v
			i++
		}
	}
}

// pmfFromCDF turns P(ratio <= inner edge e) for each inner edge (len
// edges-2) into bin probabilities (len edges-1) after an isotonic fit.
func pmfFromCDF(cdf []float64) []float32 {
	c := append([]float64(nil), cdf...)
	isotonic(c)
	p := make([]float32, len(c)+1)
	prev := 0.0
	for b, v := range c {
		p[b] = float32(v - prev)
		prev = v
	}
	p[len(c)] = float32(1 - prev)
	return p
}

// cdfAt returns the distribution p's CDF just below and at ratio y,
// F(y-) and F(y): equal except at the point masses of the first and last
// bins.
func cdfAt(edges []float64, p []float32, y float64) (lo, hi float64) {
	nb := len(edges) - 1
	b := binOf(edges, y)
	var c float64
	for _, v := range p[:b] {
		c += float64(v)
	}
	if b == 0 || b == nb-1 {
		return c, c + float64(p[b])
	}
	f := math.Log(y/edges[b]) / math.Log(edges[b+1]/edges[b])
	v := c + min(1, max(0, f))*float64(p[b])
	return v, v
}

// covered returns the probability that a job with CDF bounds lo = F(y-)
// and hi = F(y) at its real ratio counts as at or below the q-quantile
// under the non-randomised probability integral transform (Czado, Gneiting
// and Held 2009): 1{F(y) <= q} without a point mass at y, and the share
// of [F(y-), F(y)] below q with one, so a point mass (0 s, or the limit)
// neither inflates nor deflates coverage.
func covered(lo, hi, q float64) float64 {
	if hi-lo <= 1e-12 {
		if hi <= q {
			return 1
		}
		return 0
	}
	return math.Min(1, math.Max(0, (q-lo)/(hi-lo)))
}
