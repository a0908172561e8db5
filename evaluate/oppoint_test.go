package evaluate

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// TestOperatingPoint_MatchesReplay checks that choosing an operating point
// from labelled decision-grid samples (train.ChooseOperatingPoint, what
// `train --overlap-budget` does with out-of-fold predictions) is the same
// as replaying the policy with evaluate: with every decision time
// labelled, the chosen margin of the scheduler's estimate, replayed by
// Replay on the same windows, gives exactly the interruption and overlap
// the choice reported.
func TestOperatingPoint_MatchesReplay(t *testing.T) {
	ctx := context.Background()
	jobs := busyJobs(700, 8, 1)
	for i := range jobs { // predicted run times for the estimate-rt rule: the real ones, rounded up
		if i%3 > 0 {
			jobs[i].PredRunSec = min(jobs[i].LimitSec, (jobs[i].RunSec/600+1)*600)
		}
	}
	o := testOptions(sim.WindowWarm, 2)
	o.DecisionSec = 600
	fo := o.Features
	fo.Grid = &features.GridOptions{DecisionSec: 600, DenseSec: 10 * 86400, SparseSec: 600} // every decision
	fo.Workers = 2
	s, _, err := features.Build(ctx, jobs, fo)
	if err != nil {
		t.Fatal(err)
	}
	units := train.Units(&s)
	for _, tt := range []struct {
		target  train.Target
		feature string
		budget  float64
	}{
		{train.TargetEstimate, "q_est_start_minus_p_end_sec", 0.25},
		{train.TargetEstimate, "q_est_start_minus_p_end_sec", 1},
		{train.TargetEstimate, "q_est_start_minus_p_end_sec", 3},
		{train.TargetEstimateRT, "q_est_rt_start_minus_p_end_sec", 0.25},
		{train.TargetEstimateRT, "q_est_rt_start_minus_p_end_sec", 1},
	} {
		var est []float64
		for i, n := range s.Names {
			if n == tt.feature {
				est = s.Features[i]
			}
		}
		scores := make([]float64, s.Len())
		for i := range scores {
			scores[i] = train.RuleScore(tt.target, 0, 0, est[i])
		}
		budget := tt.budget
		op, err := train.ChooseOperatingPoint(tt.target, scores, s.LabelRSec, units, budget, false, "test")
		if err != nil {
			t.Fatal(err)
		}
		pol := &TrainedEstimate{Label: "est", OP: op, Target: tt.target}
		res, err := Replay(ctx, jobs, []Policy{Reactive{}, pol}, o)
		if err != nil {
			t.Fatal(err)
		}
		m := Compute(res.Rows, DefaultLambda)
		for _, n := range fo.ChainNodes {
			key := strconv.Itoa(n)
			want := op.ByChain[key]
			got := m.Policies["est"].ByChain[key]
			if got.Windows != want.Windows || math.Abs(got.MeanOverlapH-want.MeanOverlapH) > 1e-9 ||
				math.Abs(got.MeanInterruptionH-want.MeanInterruptionH) > 1e-9 ||
				math.Abs(got.InterruptionReduction-want.InterruptionReduction) > 1e-9 {
				t.Errorf("%s, budget %v, %d nodes: evaluate gives %d windows, %.4f h interruption, %.4f h overlap, reduction %.4f; "+
					"the operating point said %d, %.4f h, %.4f h, %.4f", tt.target, budget, n, got.Windows, got.MeanInterruptionH,
					got.MeanOverlapH, got.InterruptionReduction, want.Windows, want.MeanInterruptionH, want.MeanOverlapH, want.InterruptionReduction)
			}
		}
	}
}
