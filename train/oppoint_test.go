package train

import (
	"math"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
)

// unitSamples builds samples of one chain size from per-window r series
// (seconds, in decision order; the last entry is P's end).
func unitSamples(rs [][]int64) *features.Samples {
	s := &features.Samples{}
	for w, r := range rs {
		for k, v := range r {
			s.WindowID = append(s.WindowID, int32(w))
			s.WindowStart = append(s.WindowStart, int64(w)*86400)
			s.ChainNodes = append(s.ChainNodes, 1)
			s.ProbeTime = append(s.ProbeTime, int64(w)*86400+int64(k)*600)
			s.LabelRSec = append(s.LabelRSec, v)
		}
	}
	return s
}

func TestChooseOperatingPoint(t *testing.T) {
	// Two windows. Window 0: submitting at step 0 overlaps 2 h, step 1
	// overlaps 0.5 h, step 2 (P's end) interrupts 3 h. Window 1: step 0
	// overlaps 1 h, step 1 interrupts 1 h (the cliff), step 2 interrupts 2 h.
	s := unitSamples([][]int64{{-7200, -1800, 10800}, {-3600, 3600, 7200}})
	// Scores rise towards P's end, so lower thresholds submit earlier.
	scores := []float64{0.1, 0.6, 0.9, 0.2, 0.5, 0.8}
	units := Units(s)
	cases := []struct {
		budgetH   float64
		reduction float64
		overlap   float64
		within    bool
	}{
		// Reactive: 5 h of interruption in total.
		// Only reactive-like thresholds (τ > 0.6) have no overlap.
		{budgetH: 0, reduction: 0, overlap: 0, within: true},
		// τ = 0.5: w0 at step 1 (0.5 h overlap), w1 at step 1 (1 h).
		{budgetH: 0.5, reduction: 1 - 1.0/5, overlap: 0.25, within: true},
		// τ = 0.2: w0 at step 1, w1 at step 0 (1 h overlap): none left.
		{budgetH: 0.75, reduction: 1, overlap: 0.75, within: true},
	}
	for _, c := range cases {
		op, err := ChooseOperatingPoint(TargetInterrupt, scores, s.LabelRSec, units, c.budgetH, false, "test")
		if err != nil {
			t.Fatal(err)
		}
		got := op.ByChain["1"]
		if got.WithinBudget != c.within || math.Abs(got.MeanOverlapH-c.overlap) > 1e-9 ||
			math.Abs(got.InterruptionReduction-c.reduction) > 1e-9 {
			t.Errorf("budget %v: got %+v, want reduction %v overlap %v", c.budgetH, got, c.reduction, c.overlap)
		}
		if got.MeanOverlapH > c.budgetH+1e-9 {
			t.Errorf("budget %v: chosen overlap %v over budget", c.budgetH, got.MeanOverlapH)
		}
		if op.Default.Value != got.Value {
			t.Errorf("one chain size: default %v != by-chain %v", op.Default.Value, got.Value)
		}
		// The frontier is Pareto-efficient and ascending in overlap.
		fr := op.Frontier["1"]
		for i := 1; i < len(fr); i++ {
			if !(fr[i].MeanOverlapH > fr[i-1].MeanOverlapH && fr[i].InterruptionReduction > fr[i-1].InterruptionReduction) {
				t.Errorf("frontier not efficient at %d: %+v", i, fr)
			}
		}
	}
}

// TestChooseOperatingPoint_Params checks that the chosen parameter means
// the same rule for each target: θ and margins are minus the threshold.
func TestChooseOperatingPoint_Params(t *testing.T) {
	s := unitSamples([][]int64{{-3600, 7200}})
	for _, tg := range []Target{TargetR, TargetWait, TargetEstimate, TargetInterrupt} {
		op, err := ChooseOperatingPoint(tg, []float64{-0.5, 2}, s.LabelRSec, Units(s), 1, false, "test")
		if err != nil {
			t.Fatal(err)
		}
		c := op.ByChain["1"]
		if c.InterruptionReduction != 1 || c.MeanOverlapH != 1 {
			t.Errorf("%s: %+v, want the early submission", tg, c)
		}
		if ThresholdOf(tg, c.Value) != c.Threshold || c.Threshold > -0.5 {
			t.Errorf("%s: value %v threshold %v", tg, c.Value, c.Threshold)
		}
		if op.Param != ParamName(tg) || op.Rule != RuleText(tg) {
			t.Errorf("%s: param %q rule %q", tg, op.Param, op.Rule)
		}
	}
}

func TestCalibrate(t *testing.T) {
	c := Calibrate([]float64{0, 0, 1, 1}, []float32{0.1, 0.15, 0.9, 0.5})
	wantBrier := (0.01 + 0.0225 + 0.01 + 0.25) / 4
	if math.Abs(c.Brier-wantBrier) > 1e-6 || c.BaseRate != 0.5 || c.BrierBaseRate != 0.25 {
		t.Errorf("got %+v, want Brier %v", c, wantBrier)
	}
	if len(c.Reliability) != 3 || c.Reliability[0].Rows != 2 || c.Reliability[0].Observed != 0 ||
		c.Reliability[0].Lo != 0.1 || c.Reliability[2].Observed != 1 {
		t.Errorf("reliability %+v", c.Reliability)
	}
}

func TestTargetLabels(t *testing.T) {
	s := &features.Samples{ProbeTime: []int64{0, 1}, LabelRSec: []int64{-3600, 1}, LabelWaitSec: []int64{7200, 0}}
	for _, c := range []struct {
		t    Target
		want []float64
	}{{TargetR, []float64{-1, 1.0 / 3600}}, {TargetInterrupt, []float64{0, 1}}, {TargetWait, []float64{2, 0}}} {
		got, err := c.t.labels(s)
		if err != nil || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("%s: %v, %v; want %v", c.t, got, err, c.want)
		}
	}
	if _, err := ParseTarget("cost"); err == nil {
		t.Error("ParseTarget(cost) = nil error")
	}
}

// TestProtocols_TrainingNeverReadsValidation checks that the training
// presets' windows (and so every sample, CV fold and operating point
// chosen from them) end before the validation presets' first window:
// training sees no job of a validation window.
func TestProtocols_TrainingNeverReadsValidation(t *testing.T) {
	for _, pair := range [][2]string{{"ls6", "ls6-val"}, {"mirage-ls6", "mirage-ls6-val"}} {
		tr, err := features.LookupProtocol(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		va, err := features.LookupProtocol(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		loc, _ := time.LoadLocation(tr.TZ)
		t0, _ := time.ParseInLocation("2006-01-02T15:04:05", tr.Start, loc)
		v0, _ := time.ParseInLocation("2006-01-02T15:04:05", va.Start, loc)
		lastEnd := t0.Add(time.Duration(tr.Windows-1)*tr.Interval + tr.Workload)
		if lastEnd.After(v0) {
			t.Errorf("%s's last window ends %s, after %s's first starts %s", pair[0], lastEnd, pair[1], v0)
		}
	}
}

// TestTargetLabels_Cliff checks the stopping-shaped label: 1 where the
// next decision (or, on P's end, this one) interrupts.
func TestTargetLabels_Cliff(t *testing.T) {
	s := unitSamples([][]int64{{-7200, -600, 300, 900}, {-60, -30, 0}})
	got, err := TargetCliff.labels(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 1, 1, 0, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cliff labels %v, want %v", got, want)
		}
	}
}

func TestTargetLabels_Deadline(t *testing.T) {
	// Window 0: safe until step 1 (r of step 2 > 0); window 1: never
	// interrupted, safe until P's end; window 2: interrupted from the start.
	s := unitSamples([][]int64{{-7200, -600, 300, 900}, {-60, -30, 0}, {10, 20}})
	got, err := TargetDeadline.labels(s)
	if err != nil {
		t.Fatal(err)
	}
	h := 600.0 / 3600
	want := []float64{h, 0, -h, -2 * h, 2 * h, h, 0, 0, -h}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("deadline labels %v, want %v", got, want)
		}
	}
	if RuleScore(TargetDeadline, 0.5, 0, 0) != -0.5 || ParamOf(TargetDeadline, -0.5) != 0.5 {
		t.Error("deadline rule: submit when predicted time <= margin")
	}
}

// TestChooseOperatingPoint_EveryBlock checks the robust choice: with the
// windows in two time blocks, τ = 0.5 overlaps 0.5 h in block 0 and 0 in
// block 1 (0.25 h on average), so a 0.4 h budget admits it on average
// but not in every block.
func TestChooseOperatingPoint_EveryBlock(t *testing.T) {
	s := unitSamples([][]int64{{-7200, -1800, 10800}, {-3600, 3600, 7200}})
	scores := []float64{0.1, 0.6, 0.9, 0.2, 0.5, 0.8}
	units := Units(s)
	units[1].Block = 1
	for _, c := range []struct {
		every     bool
		reduction float64
	}{{false, 0.8}, {true, 0}} {
		op, err := ChooseOperatingPoint(TargetInterrupt, scores, s.LabelRSec, units, 0.4, c.every, "test")
		if err != nil {
			t.Fatal(err)
		}
		got := op.ByChain["1"]
		if math.Abs(got.InterruptionReduction-c.reduction) > 1e-9 || op.EveryBlock != c.every {
			t.Errorf("every block %v: %+v, want reduction %v", c.every, got, c.reduction)
		}
		if c.every && got.MaxBlockOverlapH > 0.4 {
			t.Errorf("every block: a block overlaps %v h", got.MaxBlockOverlapH)
		}
	}
	if b := TimeBlocks([]int32{3, 1, 2, 0}, []int64{30, 10, 20, 0}, 2); b[0] != 0 || b[1] != 0 || b[2] != 1 || b[3] != 1 {
		t.Errorf("TimeBlocks = %v", b)
	}
}
