package dqn

import (
	"math"
	"testing"
)

// TestTrajectory_Refresh: with a net whose Q(wait) = 0 and Q(submit) = x
// (the state's only feature), the greedy rule submits where x > 0, and the
// target of waiting at k is the realised reward R at the first later
// decision where x > 0 (or at the end).
func TestTrajectory_Refresh(t *testing.T) {
	net := zeroMLP([]int{1, 2})
	net.W[0][ActionSubmit] = 1 // Q(submit) = x; Q(wait) = 0
	wt := net.transposeWeights(nil)
	xs := []float64{-1, 2, -1, -1, 3, -1}
	rs := []float64{-10, -8, -6, -4, -2, -1}
	for _, c := range []struct {
		name  string
		final bool
		want  []float64
	}{
		// final: the last state is P's end; from k the next stop is at 1,
		// 4 or the end (5).
		{"final", true, []float64{-8, -2, -2, -2, -1, -1}},
		// not final: the agent submitted at 5; the rule would wait there
		// (x < 0), so its value is Q(wait) = 0 and so is waiting at 4.
		{"submitted", false, []float64{-8, -2, -2, -2, 0, 0}},
	} {
		tr := &Trajectory{R: rs, Final: c.final}
		for _, x := range xs {
			tr.S = append(tr.S, []float64{x})
		}
		tr.Refresh(net, wt, nil)
		for k, w := range c.want {
			if got := tr.waitTarget(k); got != w {
				t.Errorf("%s: wait target at %d = %v, want %v", c.name, k, got, w)
			}
		}
	}
	if v := (&Trajectory{}).waitTarget(0); !math.IsNaN(v) {
		t.Errorf("unrefreshed target %v, want NaN", v)
	}
}

// TestTrain_Targets: both targets train and are deterministic; the
// stopping target is refused without all-action transitions.
func TestTrain_Targets(t *testing.T) {
	cfg := testConfig()
	for _, target := range []string{"double", "stopping", "stopping+average"} {
		cfg.Target, cfg.Average = target, 0
		if target == "stopping+average" {
			cfg.Target, cfg.Average = "stopping", 0.1
		}
		a, err := Train(t.Context(), testEnv(t), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Train(t.Context(), testEnv(t), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.GradSteps == 0 {
			t.Fatalf("%s: no gradient steps", target)
		}
		for l := range a.Net.W {
			for i := range a.Net.W[l] {
				if a.Net.W[l][i] != b.Net.W[l][i] {
					t.Fatalf("%s: layer %d weight %d differs between two runs", target, l, i)
				}
			}
		}
	}
	cfg.Target, cfg.Average = "stopping", 0
	cfg.AllActions = false
	if _, err := Train(t.Context(), testEnv(t), cfg, nil); err == nil {
		t.Error("stopping target without all_actions accepted")
	}
	cfg.Target = "triple"
	if _, err := Train(t.Context(), testEnv(t), cfg, nil); err == nil {
		t.Error("unknown target accepted")
	}
}

// TestTrajectory_RefreshReactive: without a network the rule is reactive.
func TestTrajectory_RefreshReactive(t *testing.T) {
	tr := &Trajectory{S: [][]float64{{0}, {0}, {0}}, R: []float64{-3, -2, -5}, Final: true}
	tr.Refresh(nil, nil, nil)
	for k := range 3 {
		if got := tr.waitTarget(k); got != -5 {
			t.Errorf("wait target at %d = %v, want the reward at the end, -5", k, got)
		}
	}
}
