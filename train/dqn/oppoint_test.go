package dqn

import (
	"context"
	"math"
	"testing"

	"github.com/mirage-hpc/mirage/features"
)

// TestChooseBias checks that the chosen bias keeps the held-out windows'
// mean overlap within the budget, and that replaying the biased rule with
// Model.SubmitAt on the same windows gives exactly the replayed outcome.
func TestChooseBias(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	first, last := e.Span()
	starts := []int64{first, (first + last) / 2, last}
	net, err := NewMLP([]int{features.NumFeatures(), 8, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	st := NewStats(nil, features.NumFeatures())
	for _, budget := range []float64{0, 0.5, 2} {
		op, err := ChooseBias(ctx, e, net, st, starts, budget)
		if err != nil {
			t.Fatal(err)
		}
		m := &Model{Manifest: Manifest{Standardisation: st, OperatingPoint: op}, Net: net}
		for _, nodes := range e.ChainNodes() {
			cp := op.For(nodes)
			if cp.WithinBudget && cp.MeanOverlapH > budget+1e-9 {
				t.Errorf("budget %v, %d nodes: overlap %v", budget, nodes, cp.MeanOverlapH)
			}
			// Replay the biased rule and compare.
			raw := make([]float64, features.NumFeatures())
			var sumO, sumI float64
			for _, start := range starts {
				if err := e.Reset(ctx, start, nodes, raw); err != nil {
					t.Fatal(err)
				}
				for {
					a := ActionWait
					if m.SubmitAt(raw, nodes) {
						a = ActionSubmit
					}
					_, done, err := e.Step(ctx, a, raw)
					if err != nil {
						t.Fatal(err)
					}
					if done {
						r := e.RSec()
						sumI += float64(max(r, 0)) / 3600
						sumO += float64(max(-r, 0)) / 3600
						break
					}
				}
			}
			n := float64(len(starts))
			if math.Abs(sumO/n-cp.MeanOverlapH) > 1e-9 || math.Abs(sumI/n-cp.MeanInterruptionH) > 1e-9 {
				t.Errorf("budget %v, %d nodes: replay overlap %v interruption %v, chosen %+v", budget, nodes, sumO/n, sumI/n, cp)
			}
		}
	}
}
