package reports

import (
	"github.com/mirage-hpc/mirage/evaluate"
)

// Bootstrap defaults: the interval level and the number of resamples.
const (
	IntervalLevel    = 0.95
	DefaultResamples = 2000
	DefaultSeed      = 1
)

// Stats are a policy's outcomes over a set of windows of one chain
// size, each with its bootstrap interval over the windows.
type Stats struct {
	Policy string `json:"policy"`
	Label  string `json:"label"`
	Nodes  int    `json:"chain_nodes"`
	// Load is the load class ("" for all windows).
	Load    string `json:"load,omitempty"`
	Windows int    `json:"windows"`
	// Reduction is 1 − Σ interruption / Σ reactive's interruption
	// (windows resampled in pairs).
	Reduction Interval `json:"interruption_reduction"`
	// InterruptionH, OverlapH and NodeH are means per window: hours of
	// interruption, hours of overlap, node-hours of overlap.
	InterruptionH Interval `json:"mean_interruption_h"`
	OverlapH      Interval `json:"mean_overlap_h"`
	NodeH         Interval `json:"mean_overlap_node_h"`
	// ZeroShare is the share of windows with zero interruption; Zero is
	// their count.
	ZeroShare Interval `json:"zero_interruption_share"`
	Zero      int      `json:"zero_interruption_windows"`
	// CostH is the mean of interruption + λ·overlap.
	CostH float64 `json:"mean_cost_h"`
}

// boot holds the bootstrap settings.
type boot struct {
	reps int
	seed uint64
}

// statsFor computes policy's Stats on the windows idx of cw. Each
// quantity's resamples use the same seed, so the intervals of different
// quantities (and policies) are over the same resampled window sets.
func statsFor(cw *chainWindows, policy, label, load string, idx []int, lambda float64, b boot) Stats {
	r := cw.RSec[policy]
	s := Stats{Policy: policy, Label: label, Nodes: cw.Nodes, Load: load, Windows: len(idx)}
	intr := hours(r, idx, evaluate.InterruptionH)
	ovl := hours(r, idx, evaluate.OverlapH)
	react := hours(cw.ReactiveRSec, idx, evaluate.InterruptionH)
	zero := make([]float64, len(idx))
	var cost float64
	for k := range idx {
		if intr[k] == 0 {
			zero[k] = 1
			s.Zero++
		}
		cost += intr[k] + lambda*ovl[k]
	}
	if len(idx) > 0 {
		s.CostH = cost / float64(len(idx))
	}
	n := len(idx)
	mean := func(v []float64) Interval {
		return Bootstrap(n, func(i []int) float64 { return meanOf(v, i) }, b.reps, IntervalLevel, b.seed)
	}
	s.InterruptionH, s.OverlapH, s.ZeroShare = mean(intr), mean(ovl), mean(zero)
	nodeH := make([]float64, n)
	for k := range ovl {
		nodeH[k] = ovl[k] * float64(cw.Nodes)
	}
	s.NodeH = mean(nodeH)
	s.Reduction = Bootstrap(n, func(i []int) float64 { return reductionOf(intr, react, i) }, b.reps, IntervalLevel, b.seed)
	return s
}
