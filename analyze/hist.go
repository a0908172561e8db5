package analyze

import "math"

// Durations up to histExactSec seconds are counted exactly; longer ones in
// logarithmic bins histRatio wide (0.5 %).
const (
	histExactSec = 3600
	histRatio    = 1.005
)

var logHistRatio = math.Log(histRatio)

// hist is a histogram of non-negative durations in seconds: exact below
// an hour, within 0.5 % above. It summarises any number of values in a few
// kilobytes, so the streaming pass keeps one per group.
type hist struct {
	n      int64
	bins   []int64 // index: see binOf
	sum    float64 // of the values, seconds
	longer int64   // values longer than the job's own run time (waits only)
}

// binOf returns the bin of v >= 0 seconds.
func binOf(v int64) int {
	if v < histExactSec {
		return int(v)
	}
	return histExactSec + int(math.Log(float64(v)/histExactSec)/logHistRatio)
}

// binValue returns the smallest duration (seconds) of bin b: the value
// quantiles report for the bin.
func binValue(b int) float64 {
	if b < histExactSec {
		return float64(b)
	}
	return math.Round(histExactSec * math.Exp(float64(b-histExactSec)*logHistRatio))
}

// add counts v seconds (a negative v counts as 0).
func (h *hist) add(v int64) {
	v = max(v, 0)
	b := binOf(v)
	if b >= len(h.bins) {
		h.bins = append(h.bins, make([]int64, b+1-len(h.bins)+64)...)
	}
	h.bins[b]++
	h.n++
	h.sum += float64(v)
}

// quantile returns the nearest-rank p-quantile (0 < p <= 1): the value of
// rank ceil(p·n), 1-indexed, in ascending order; 0 for an empty
// histogram. Exact below an hour, the bin's lower edge above.
func (h *hist) quantile(p float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(p*float64(h.n))), 1)
	var c int64
	for b, k := range h.bins {
		c += k
		if c >= rank {
			return binValue(b)
		}
	}
	return binValue(len(h.bins) - 1)
}

// shareAtMost returns the share of values <= v seconds (0 when empty).
func (h *hist) shareAtMost(v float64) float64 {
	if h.n == 0 {
		return 0
	}
	var c int64
	for b, k := range h.bins {
		if binValue(b) > v {
			break
		}
		c += k
	}
	return float64(c) / float64(h.n)
}

// cdfPoints are the durations (seconds) at which the wait CDFs are
// tabulated: 0, then ten points per decade from 1 s to 10^8 s.
var cdfPoints = func() []float64 {
	p := []float64{0}
	for e := 0; e < 80; e++ {
		p = append(p, math.Round(math.Pow(10, float64(e)/10)))
	}
	out := p[:1]
	for _, v := range p[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}()
