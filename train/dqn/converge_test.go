package dqn

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"
)

// TestHeldOutOnGrid: with ValidOnGrid the held-out starts are the
// protocol's window starts (first + k·interval) in segments centred in
// their blocks, at most ValidEpisodes of them, and every training start
// outside the excluded intervals is more than the workload away from each.
func TestHeldOutOnGrid(t *testing.T) {
	const day, interval = 86400, 4 * 3600
	first := int64(1_664_000_000)
	last := first + 113*day
	for _, c := range []struct {
		share     float64
		blocks, n int
		want      int
	}{{0.15, 3, 400, 99}, {0.15, 3, 96, 96}, {0.1, 1, 24, 24}, {0.2, 4, 7, 7}} {
		cfg := DefaultConfig()
		cfg.ValidOnGrid = true
		cfg.ValidShare, cfg.ValidBlocks, cfg.ValidEpisodes = c.share, c.blocks, c.n
		w := int64(5 * day)
		starts, excl := heldOutOnGrid(first, last, interval, cfg, w)
		if len(starts) != c.want || len(excl) != c.blocks {
			t.Fatalf("%+v: %d starts (want %d), %d intervals", c, len(starts), c.want, len(excl))
		}
		if !slices.IsSorted(starts) {
			t.Errorf("%+v: unsorted", c)
		}
		for _, s := range starts {
			if (s-first)%interval != 0 {
				t.Fatalf("%+v: start %d is off the protocol's grid", c, s)
			}
		}
		// Centred: no segment reaches the period's edges.
		if excl[0][0]+w <= first || excl[len(excl)-1][1]-w >= last {
			t.Errorf("%+v: segments %v reach the period's edges", c, excl)
		}
		segs, _ := heldOutSegments(first, last, cfg, w)
		for b, s := range segs {
			mid := first + (last-first)*int64(2*b+1)/int64(2*c.blocks)
			if d := (s.lo+s.hi)/2 - mid; d < -1 || d > 1 {
				t.Errorf("%+v: segment %d centred at %d, want %d", c, b, (s.lo+s.hi)/2, mid)
			}
		}
		for _, s := range trainStarts(first, last, 600, excl) {
			for _, v := range starts {
				if d := max(s-v, v-s); d <= w {
					t.Fatalf("%+v: training start %d is %d s from held-out start %d", c, s, d, v)
				}
			}
		}
	}
}

// TestEpsilon_Progress: with EpsShare ε falls linearly by episode over
// that share of the budget, then stays at EpsEnd; patience counts only
// the validations after that.
func TestEpsilon_Progress(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Episodes, cfg.EpsShare, cfg.EpsStart, cfg.EpsEnd = 100, 0.4, 1, 0.1
	tr := &trainer{cfg: cfg}
	for _, c := range []struct {
		ep   int
		want float64
	}{{0, 1}, {20, 0.55}, {40, 0.1}, {99, 0.1}} {
		tr.episodeNo = c.ep
		tr.res = &Result{Decisions: 1e9}
		if got := tr.epsilon(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("episode %d: epsilon %v, want %v", c.ep, got, c.want)
		}
	}
	cfg.EpsShare = 0
	tr = &trainer{cfg: cfg, sched: Epsilon{Start: 1, End: 0.1, Steps: 10}, res: &Result{Decisions: 5}}
	if got := tr.epsilon(); math.Abs(got-0.55) > 1e-12 {
		t.Errorf("without eps_share: %v, want the decision schedule's 0.55", got)
	}
}

// TestShaping_Targets: under the submit shaping the target of waiting at
// k is the realised value less Φ = the submit reward at k (Agent.Update),
// the sum of the one-decision changes of the submit outcome from k to
// where the rule stops.
func TestShaping_Targets(t *testing.T) {
	tr := &Trajectory{S: [][]float64{{0}, {0}, {0}}, R: []float64{-3, -2, -5}, Final: true, Shaped: true}
	tr.Refresh(nil, nil, nil)
	// The reactive rule's value of waiting is the reward at P's end.
	for k := range 2 {
		if y := tr.waitTarget(k) - tr.R[k]; y != tr.R[2]-tr.R[k] {
			t.Errorf("k=%d: shaped wait target %v, want %v", k, y, tr.R[2]-tr.R[k])
		}
	}
}

// TestTrain_ConvergeOptions: the new options train, stay deterministic
// for a seed, and reject what they cannot do.
func TestTrain_ConvergeOptions(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig()
	cfg.ValidOnGrid, cfg.EpsShare, cfg.Shaping = true, 0.5, "submit"
	cfg.ValidShare, cfg.ValidEpisodes = 0.5, 2
	a, err := Train(ctx, testEnv(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(ctx, testEnv(t), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.GradSteps == 0 || len(a.ValidStart) == 0 {
		t.Fatalf("%d gradient steps, %d held-out windows", a.GradSteps, len(a.ValidStart))
	}
	for k, p := range a.Net.Params() {
		if !slices.Equal(p, b.Net.Params()[k]) {
			t.Fatalf("param %d differs between runs with the same seed", k)
		}
	}
	// ε decays by episode: the last episodes explore at EpsEnd.
	if e := a.Curve[len(a.Curve)-1].Epsilon; e != cfg.EpsEnd {
		t.Errorf("last epsilon %v, want %v", e, cfg.EpsEnd)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Target = "double" },
		func(c *Config) { c.Shaping = "magic" },
		func(c *Config) { c.EpsShare = 2 },
	} {
		c := cfg
		bad(&c)
		if _, err := Train(ctx, testEnv(t), c, nil); err == nil {
			t.Errorf("config %+v: no error", c)
		}
	}
}

// TestConvergeConfig: the shipped converging configuration decodes and
// turns on every option it documents.
func TestConvergeConfig(t *testing.T) {
	raw, err := os.ReadFile("converge.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := DecodeConfig(raw, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ValidOnGrid || cfg.EpsShare <= 0 || cfg.Shaping != "submit" || cfg.Target != "stopping" {
		t.Errorf("converge.json gives %+v", cfg)
	}
	if _, err := targetStopping(cfg); err != nil {
		t.Error(err)
	}
}

// TestShaping_NetworkEstimate: where the episode ended by the agent's
// submission, the value of waiting at its last decision is the target
// network's estimate; a shaped network estimates Q − Φ, so the target
// adds back Φ = the submit reward there.
func TestShaping_NetworkEstimate(t *testing.T) {
	net, err := NewMLP([]int{1, 4, NumActions}, 3)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(shaped bool) *Trajectory {
		tr := &Trajectory{S: [][]float64{{0.5}, {-1}, {2}}, R: []float64{-3, -2, -5}, Shaped: shaped}
		tr.Refresh(net, net.transposeWeights(nil), nil)
		return tr
	}
	plain, shaped := mk(false), mk(true)
	if d := shaped.waitTarget(2) - plain.waitTarget(2); math.Abs(d-(-5)) > 1e-12 {
		t.Errorf("shaped estimate at the last decision differs by %v, want Φ = -5", d)
	}
}
