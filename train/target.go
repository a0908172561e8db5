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
	// TargetStop is the magnitude-aware stopping target: the extra
	// interruption of waiting one more decision, per hour of waiting,
	// [max(r(t+Δ), 0) − max(r(t), 0)] / Δ with Δ the time in hours to the
	// window's next decision (regression; see stopLabels). Its
	// expectation is what waiting costs: a window whose next step jumps
	// from overlap to a 5 h interruption has a larger one than a window
	// whose next step interrupts by minutes, where TargetInterrupt and
	// TargetCliff see the same event r > 0. Rule: submit when the
	// prediction ≥ λ (hours of interruption per hour of waiting,
	// ParamName "lambda"; DefaultStopLambda without an operating point).
	TargetStop Target = "stop"
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

// DefaultStopLambda is TargetStop's λ without an operating point: submit
// once waiting is expected to add an hour of interruption per hour.
const DefaultStopLambda = 1.0

// StopLastRate is TargetStop's label on a window's last decision, P's
// end, where no decision follows: waiting past P's end delays Q's start
// by at least as long, so the interruption grows by at least an hour per
// hour of waiting. The rule submits there in any case.
const StopLastRate = 1.0

// Targets lists the targets a tree model can be trained on.
var Targets = []Target{TargetR, TargetInterrupt, TargetCliff, TargetDeadline, TargetWait, TargetStop}

// ParseTarget parses r, interrupt, cliff, deadline, wait or stop.
func ParseTarget(s string) (Target, error) {
	switch t := Target(s); t {
	case TargetR, TargetInterrupt, TargetCliff, TargetDeadline, TargetWait, TargetStop:
		return t, nil
	case "r_hours": // manifests before targets existed
		return TargetR, nil
	}
	return "", fmt.Errorf("target %q: want r, interrupt, cliff, deadline, wait or stop", s)
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
func (t Target) labels(s *features.Samples) ([]float64, error) { return t.labelsWith(s, 0) }

// labelsWith is labels with TargetStop's horizon (Options.StopHorizonSec)
// and its default label, StopLabelRate.
func (t Target) labelsWith(s *features.Samples, stopHorizonSec int64) ([]float64, error) {
	return t.labelsStop(s, stopHorizonSec, StopLabelRate)
}

// labelsStop is labels with TargetStop's horizon and label kind
// (Options.StopHorizonSec, Options.StopLabel).
func (t Target) labelsStop(s *features.Samples, stopHorizonSec int64, label StopLabel) ([]float64, error) {
	if len(s.LabelRSec) != s.Len() || (t == TargetWait && len(s.LabelWaitSec) != s.Len()) {
		return nil, fmt.Errorf("train: %w: no label columns", ErrSamples)
	}
	if t == TargetStop && label == StopLabelPeak {
		return stopPeakLabels(s, stopHorizonSec), nil
	}
	if t == TargetStop && label == StopLabelWorst {
		return stopWorstLabels(s, stopHorizonSec), nil
	}
	if t == TargetStop {
		return stopLabels(s, stopHorizonSec), nil
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

// stopLabels returns TargetStop's label of every row of s: within each
// window and chain size (Units, in decision order), the extra
// interruption in hours of submitting at a later decision instead of
// this one, per hour between the two, [max(r_next, 0) − max(r, 0)] / Δ_h,
// the later decision being the next one, or with horizonSec > 0 the last
// one within horizonSec (the next one when none is that close); on the
// window's last decision (P's end) StopLastRate. Two rows at the same
// probe time (none on the decision grid) take the difference itself, as
// if an hour apart.
func stopLabels(s *features.Samples, horizonSec int64) []float64 {
	y := make([]float64, s.Len())
	for _, u := range Units(s) {
		j := 0
		for k, row := range u.Rows {
			if k == len(u.Rows)-1 {
				y[row] = StopLastRate
				continue
			}
			j = max(j, k+1)
			for j+1 < len(u.Rows) && s.ProbeTime[u.Rows[j+1]]-s.ProbeTime[row] <= horizonSec {
				j++
			}
			next := u.Rows[j]
			d := float64(max(s.LabelRSec[next], 0)-max(s.LabelRSec[row], 0)) / 3600
			if dt := float64(s.ProbeTime[next]-s.ProbeTime[row]) / 3600; dt > 0 {
				d /= dt
			}
			y[row] = d
		}
	}
	return y
}
