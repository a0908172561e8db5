package train

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// blockedSamples builds one chain size's windows in time blocks: window
// j of block b may submit early with an overlap of factor[b]·(j+1)/2 h
// (score 1 − j/10, so a lower threshold also submits the windows that
// overlap more) or wait to P's end, interrupted 2 h.
func blockedSamples(factor []float64, perBlock int) ([]float64, []int64, []Unit) {
	var rs [][]int64
	var scores []float64
	for _, f := range factor {
		for j := range perBlock {
			rs = append(rs, []int64{-int64(f * float64(j+1) * 1800), 7200})
			scores = append(scores, 1-float64(j)/10, 2)
		}
	}
	s := unitSamples(rs)
	units := Units(s)
	for i := range units {
		units[i].Block = i / perBlock
	}
	return scores, s.LabelRSec, units
}

// heldOutOverlap chooses rule's point on every block but b and returns
// its mean overlap on block b (hours per window).
func heldOutOverlap(t *testing.T, scores []float64, rSec []int64, units []Unit, b int, budgetH float64, rule BudgetRule) float64 {
	t.Helper()
	var train, test []Unit
	for _, u := range units {
		if u.Block == b {
			test = append(test, u)
			continue
		}
		if u.Block > b {
			u.Block-- // blocks stay 0..K-2
		}
		train = append(train, u)
	}
	op, err := ChooseOperatingPointRule(TargetInterrupt, scores, rSec, train, budgetH, rule, "test")
	if err != nil {
		t.Fatal(err)
	}
	th := op.ByChain["1"].Threshold
	var o float64
	for _, u := range test {
		k := len(u.Rows) - 1
		for i, row := range u.Rows {
			if scores[row] >= th {
				k = i
				break
			}
		}
		o += float64(max(-rSec[u.Rows[k]], 0)) / 3600
	}
	return o / float64(len(test))
}

// TestBudgetRule_HeldOut is the rules' out-of-sample check: each time
// block is left out in turn, the point chosen on the others and its
// overlap measured on the block left out. With drifting blocks the mean
// rule exceeds the budget on a block left out; the nested rule, whose k
// is learned the same way one level down, does not.
func TestBudgetRule_HeldOut(t *testing.T) {
	const budgetH = 1.0
	cases := []struct {
		name   string
		factor []float64
		// meanBreaks: the mean rule exceeds the budget on some block left out.
		meanBreaks bool
	}{
		{"drift", []float64{0.6, 1, 1.4, 0.8, 1.6}, true},
		{"alternating", []float64{0.5, 1.5, 0.5, 1.5, 0.5, 1.5}, true},
		{"stationary", []float64{1, 1, 1, 1, 1}, false},
	}
	for _, c := range cases {
		scores, rSec, units := blockedSamples(c.factor, 8)
		broke := false
		for b := range c.factor {
			mean := heldOutOverlap(t, scores, rSec, units, b, budgetH, BudgetMean)
			nested := heldOutOverlap(t, scores, rSec, units, b, budgetH, BudgetNested)
			t.Logf("%s: block %d left out: mean rule %.3f h, nested %.3f h", c.name, b, mean, nested)
			broke = broke || mean > budgetH+1e-9
			if nested > budgetH+1e-9 {
				t.Errorf("%s: block %d left out: the nested rule's point overlaps %.3f h > %.1f h", c.name, b, nested, budgetH)
			}
		}
		if broke != c.meanBreaks {
			t.Errorf("%s: the mean rule broke the budget on a block left out: %v, want %v", c.name, broke, c.meanBreaks)
		}
	}
}

// TestBudgetRule_ChosenPointRecordsCV checks what a chosen point records
// under each rule: the overlap of every time block, the bound held
// within the budget (the pooled mean, the largest block's, mean + k·sd)
// and, for the nested rule, k and whether it held; and that the mean
// rule's choice is ChooseOperatingPoint's.
func TestBudgetRule_ChosenPointRecordsCV(t *testing.T) {
	scores, rSec, units := blockedSamples([]float64{0.6, 1, 1.4, 0.8, 1.6}, 8)
	old, err := ChooseOperatingPoint(TargetInterrupt, scores, rSec, units, 1, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []BudgetRule{BudgetMean, BudgetEveryBlock, BudgetNested} {
		op, err := ChooseOperatingPointRule(TargetInterrupt, scores, rSec, units, 1, rule, "test")
		if err != nil {
			t.Fatal(err)
		}
		p := op.ByChain["1"]
		if op.BudgetRule != rule || len(p.BlockOverlapH) != 5 || !p.WithinBudget || p.OverlapBoundH > 1+1e-9 {
			t.Fatalf("%s: %+v", rule, p)
		}
		var sum, mx float64
		for _, v := range p.BlockOverlapH {
			sum, mx = sum+v, max(mx, v)
		}
		mean := sum / 5 // equal blocks: the pooled mean is the blocks' mean
		var ss float64
		for _, v := range p.BlockOverlapH {
			ss += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(ss / 4)
		want := map[BudgetRule]float64{BudgetMean: mean, BudgetEveryBlock: mx, BudgetNested: mean + p.BoundK*sd}[rule]
		if math.Abs(p.MeanOverlapH-mean) > 1e-9 || math.Abs(p.MaxBlockOverlapH-mx) > 1e-9 || math.Abs(p.OverlapBoundH-want) > 1e-9 {
			t.Errorf("%s: mean %v max %v bound %v, want %v %v %v", rule, p.MeanOverlapH, p.MaxBlockOverlapH, p.OverlapBoundH, mean, mx, want)
		}
		switch rule {
		case BudgetMean:
			if !reflect.DeepEqual(p, old.ByChain["1"]) || op.EveryBlock {
				t.Errorf("mean rule %+v, ChooseOperatingPoint %+v", p, old.ByChain["1"])
			}
		case BudgetNested:
			if p.BoundHeld == nil || !*p.BoundHeld || p.BoundK <= 0 {
				t.Errorf("nested: k %v held %v: want a positive k that held", p.BoundK, p.BoundHeld)
			}
			// mean + k·sd ≥ mean: its choices are among the mean rule's.
			if p.InterruptionReduction > old.ByChain["1"].InterruptionReduction {
				t.Errorf("nested: reduction %v, want at most the mean rule's %v", p.InterruptionReduction, old.ByChain["1"].InterruptionReduction)
			}
		case BudgetEveryBlock:
			if !op.EveryBlock {
				t.Error("every-block: budget_every_block unset")
			}
		}
	}
}

func TestParseBudgetRule(t *testing.T) {
	for in, want := range map[string]BudgetRule{"": DefaultBudgetRule, "mean": BudgetMean, "every-block": BudgetEveryBlock, "nested": BudgetNested, "max": ""} {
		got, err := ParseBudgetRule(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("ParseBudgetRule(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestRun_BudgetRuleManifest: Run with the nested rule writes the CV
// overlap of each chosen point into manifest.json, byte-identical
// between two runs.
func TestRun_BudgetRuleManifest(t *testing.T) {
	s, meta := synth()
	p := DefaultParams(KindXGBoost)
	p.Rounds, p.EarlyStopping, p.ValidShare, p.Threads = 10, 0, 0, 1
	var files [2][]byte
	for i := range files {
		dir := filepath.Join(t.TempDir(), "m")
		if _, err := Run(context.Background(), s, meta, dir, Options{Params: p, K: 3, Target: TargetInterrupt, BudgetRule: BudgetNested, Version: "test"}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("manifest.json differs between two identical runs")
	}
	var m struct {
		OP struct {
			Rule    string `json:"budget_rule"`
			ByChain map[string]struct {
				Blocks []float64 `json:"cv_block_overlap_h"`
				Bound  *float64  `json:"cv_overlap_bound_h"`
				Held   *bool     `json:"cv_bound_held"`
			} `json:"by_chain_nodes"`
		} `json:"operating_point"`
	}
	if err := json.Unmarshal(files[0], &m); err != nil {
		t.Fatal(err)
	}
	if m.OP.Rule != string(BudgetNested) || len(m.OP.ByChain) == 0 {
		t.Fatalf("manifest operating point %+v", m.OP)
	}
	for k, c := range m.OP.ByChain {
		if len(c.Blocks) != 3 || c.Held == nil {
			t.Errorf("chain %s: blocks %v held %v: want 3 blocks and cv_bound_held", k, c.Blocks, c.Held)
		}
	}
}
