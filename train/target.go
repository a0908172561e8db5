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
	// TargetCliff is the stopping-shaped target: P(r > 0 at the next
	// decision time of the window's samples), the probability that waiting
	// one more decision crosses the cliff where Q's start jumps past P's
	// end (binary:logistic; on P's end, its own r > 0). Rule: submit when
	// the probability ≥ τ. On the decision grid (features --probes grid)
	// the next decision is 10 minutes later in the last 24 h before P's
	// expected end, and an hour later before that.
	TargetCliff Target = "cliff"
	// TargetDeadline is the time in hours from now to the window's last
	// safe decision: the latest decision time before the first one whose r
	// > 0 (P's end if none; the first decision if even that one
	// interrupts), negative once it has passed (regression). Rule: submit
	// when the predicted time to the deadline ≤ margin. It is the optimal
	// stopping time of the hindsight oracle as a continuous label.
	TargetDeadline Target = "deadline"
	// TargetWait is Q's wait in hours if submitted now (regression).
	// Rule: submit when the predicted wait ≥ P's remaining time − margin,
	// as an estimate-style rule.
	TargetWait Target = "wait"
	// TargetEstimate is no model: the scheduler's own estimate of Q's
	// start (squeue --start, the feature q_est_start_minus_p_end_sec) with
	// the same rule as TargetWait; `train --model estimate` only chooses
	// its margin.
	TargetEstimate Target = "estimate"
	// TargetEstimateRT is TargetEstimate with predicted run times in
	// place of limits (sim.EstimatedStartPredicted, the feature
	// q_est_rt_start_minus_p_end_sec): `train --model estimate-rt`.
	TargetEstimateRT Target = "estimate-rt"
	// TargetFixedLead is no model: a fixed lead before P's expected end
	// (its start plus its limit; sbatch --dependency=after:P+N), the rule
	// submit when P's remaining time (the feature p_remaining_sec) ≤ the
	// lead; `train --model fixed-lead` only chooses the lead (hours).
	TargetFixedLead Target = "fixed-lead"
	// TargetAdvantage is a DQN's advantage of submitting, Q(s, submit) −
	// Q(s, wait) in its reward's units (hours): no tree model; the DQN's
	// greedy rule with a bias (submit when advantage + bias ≥ 0), whose
	// bias train/dqn chooses on held-out training windows.
	TargetAdvantage Target = "advantage"
)

// Targets lists the targets a tree model can be trained on.
var Targets = []Target{TargetR, TargetInterrupt, TargetCliff, TargetDeadline, TargetWait}

// ParseTarget parses r, interrupt, cliff, deadline or wait.
func ParseTarget(s string) (Target, error) {
	switch t := Target(s); t {
	case TargetR, TargetInterrupt, TargetCliff, TargetDeadline, TargetWait:
		return t, nil
	case "r_hours": // manifests before targets existed
		return TargetR, nil
	}
	return "", fmt.Errorf("target %q: want r, interrupt, cliff, deadline or wait", s)
}

// Classification reports whether the target is a probability.
func (t Target) Classification() bool { return t == TargetInterrupt || t == TargetCliff }

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
	if t == TargetCliff {
		for _, u := range Units(s) {
			for k, row := range u.Rows {
				next := u.Rows[min(k+1, len(u.Rows)-1)]
				if s.LabelRSec[next] > 0 {
					y[row] = 1
				}
			}
		}
		return y, nil
	}
	if t == TargetDeadline {
		for _, u := range Units(s) {
			safe := u.Rows[0]
			for _, row := range u.Rows {
				if s.LabelRSec[row] > 0 {
					break
				}
				safe = row
			}
			for _, row := range u.Rows {
				y[row] = float64(s.ProbeTime[safe]-s.ProbeTime[row]) / 3600
			}
		}
		return y, nil
	}
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
