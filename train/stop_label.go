package train

import (
	"fmt"

	"github.com/mirage-hpc/mirage/features"
)

// StopLabel is how TargetStop's label measures the cost of waiting.
type StopLabel string

const (
	// StopLabelRate (the default, also "") is the extra interruption of
	// submitting at one later decision (the next, or the last within the
	// horizon) instead of now, per hour between the two (stopLabels).
	StopLabelRate StopLabel = "rate"
	// StopLabelPeak is the largest extra interruption in hours, not per
	// hour, of submitting at any later decision within the horizon
	// instead of now, max_j [max(r_j, 0) − max(r, 0)] (at least the next
	// decision; 0 when every later one interrupts less). It keeps the
	// magnitude without the one-step rate's zeros before the cliff and
	// spikes on it: a window whose interruption is coming within the
	// horizon is labelled by its size from every decision that sees it
	// coming. On the window's last decision StopLastRate (hours). The
	// rule is the same, submit when the prediction ≥ λ, λ in hours.
	StopLabelPeak StopLabel = "peak"
	// StopLabelWorst is the largest interruption in hours of submitting
	// now or at any later decision within the horizon (at least the
	// next), max_j max(r_j, 0) over j from this decision on: not the
	// difference to now, so a window already past its cliff keeps its
	// label (where StopLabelPeak falls to the growth of r). It is the
	// magnitude-aware form of TargetCliff (horizon 0) and TargetInterrupt:
	// the size of what waiting risks rather than the probability of r > 0.
	// On the window's last decision max(r, 0) (hours), λ in hours.
	StopLabelWorst StopLabel = "worst"
)

// ParseStopLabel parses rate (or ""), peak or worst.
func ParseStopLabel(s string) (StopLabel, error) {
	switch l := StopLabel(s); l {
	case "", StopLabelRate:
		return StopLabelRate, nil
	case StopLabelPeak, StopLabelWorst:
		return l, nil
	}
	return "", fmt.Errorf("stop label %q: want rate, peak or worst", s)
}

// stopPeakLabels returns StopLabelPeak's label of every row of s:
// within each window and chain size (Units, in decision order), the
// largest max(r_j, 0) − max(r, 0) in hours over the later decisions j
// within horizonSec (the next decision at least), floored at 0;
// StopLastRate on the window's last decision.
func stopPeakLabels(s *features.Samples, horizonSec int64) []float64 {
	y := make([]float64, s.Len())
	for _, u := range Units(s) {
		for k, row := range u.Rows {
			if k == len(u.Rows)-1 {
				y[row] = StopLastRate
				continue
			}
			now := max(s.LabelRSec[row], 0)
			var peak int64
			for j := k + 1; j < len(u.Rows); j++ {
				next := u.Rows[j]
				if j > k+1 && s.ProbeTime[next]-s.ProbeTime[row] > horizonSec {
					break
				}
				peak = max(peak, max(s.LabelRSec[next], 0)-now)
			}
			y[row] = float64(peak) / 3600
		}
	}
	return y
}

// stopWorstLabels returns StopLabelWorst's label of every row of s:
// within each window and chain size (Units, in decision order), the
// largest max(r_j, 0) in hours over this decision and the later ones
// within horizonSec (the next decision at least).
func stopWorstLabels(s *features.Samples, horizonSec int64) []float64 {
	y := make([]float64, s.Len())
	for _, u := range Units(s) {
		for k, row := range u.Rows {
			worst := max(s.LabelRSec[row], 0)
			for j := k + 1; j < len(u.Rows); j++ {
				next := u.Rows[j]
				if j > k+1 && s.ProbeTime[next]-s.ProbeTime[row] > horizonSec {
					break
				}
				worst = max(worst, s.LabelRSec[next])
			}
			y[row] = float64(worst) / 3600
		}
	}
	return y
}
