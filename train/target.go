package train

import (
	"fmt"

	"github.com/mirage-hpc/mirage/features"
)

// Target is what a model predicts for a sample row, and so which
// threshold rule turns its prediction into a decision (see Rule).
type Target string

const (
	// TargetR is r = Q.start − P.end in hours (regression; the Mirage
	// artifact's target). Rule: submit when the prediction ≥ −θ.
	TargetR Target = "r"
	// TargetInterrupt is P(r > 0), the probability that Q submitted now
	// starts after P ends (binary:logistic). Rule: submit when the
	// probability ≥ τ.
	TargetInterrupt Target = "interrupt"
	// TargetWait is Q's wait in hours if submitted now (regression).
	// Rule: submit when the predicted wait ≥ P's remaining time − margin,
	// as an estimate-style rule.
	TargetWait Target = "wait"
	// TargetEstimate is no model: the scheduler's own estimate of Q's
	// start (squeue --start, the feature q_est_start_minus_p_end_sec) with
	// the same rule as TargetWait; `train --model estimate` only chooses
	// its margin.
	TargetEstimate Target = "estimate"
)

// Targets lists the targets a tree model can be trained on.
var Targets = []Target{TargetR, TargetInterrupt, TargetWait}

// ParseTarget parses r, interrupt or wait.
func ParseTarget(s string) (Target, error) {
	switch t := Target(s); t {
	case TargetR, TargetInterrupt, TargetWait:
		return t, nil
	case "r_hours": // manifests before targets existed
		return TargetR, nil
	}
	return "", fmt.Errorf("target %q: want r, interrupt or wait", s)
}

// Classification reports whether the target is a probability.
func (t Target) Classification() bool { return t == TargetInterrupt }

// Objective returns the XGBoost objective for t given the regression
// objective of the parameters.
func (t Target) Objective(regression string) string {
	if t.Classification() {
		return ObjectiveLogistic
	}
	return regression
}

// labels returns the training label of every row of s for t: r or the
// wait in hours, or 1 for r > 0 and 0 otherwise.
func (t Target) labels(s *features.Samples) ([]float64, error) {
	if len(s.LabelRSec) != s.Len() || (t == TargetWait && len(s.LabelWaitSec) != s.Len()) {
		return nil, fmt.Errorf("train: %w: no label columns", ErrSamples)
	}
	y := make([]float64, s.Len())
	for i := range y {
		switch t {
		case TargetInterrupt:
			if s.LabelRSec[i] > 0 {
				y[i] = 1
			}
		case TargetWait:
			y[i] = float64(s.LabelWaitSec[i]) / 3600
		default:
			y[i] = float64(s.LabelRSec[i]) / 3600
		}
	}
	return y, nil
}
