package train

import (
	"math"
	"testing"

	"github.com/mirage-hpc/mirage/features"
)

// TestTargetLabels_Stop checks the stopping target's label from
// consecutive rows of one window: the extra interruption of the next
// decision per hour between them, StopLastRate on the last decision.
func TestTargetLabels_Stop(t *testing.T) {
	const h = 3600
	cases := []struct {
		name  string
		probe []int64 // probe times of one window, seconds, in order
		r     []int64 // r of each row, seconds
		want  []float64
	}{
		{name: "overlap to overlap costs nothing",
			probe: []int64{0, 600, 1200}, r: []int64{-7200, -600, 0},
			want: []float64{0, 0, StopLastRate}},
		{name: "crossing the cliff counts only the interruption",
			probe: []int64{0, 600}, r: []int64{-1800, 1800},
			want: []float64{1800.0 / 600, StopLastRate}},
		{name: "hour steps before the last day, 10 minute steps in it",
			probe: []int64{0, h, h + 600}, r: []int64{-600, 2 * h, 3 * h},
			want: []float64{2, 6, StopLastRate}},
		{name: "an interruption that shrinks is a negative cost",
			probe: []int64{0, 600, 1200}, r: []int64{1200, 600, 900},
			want: []float64{-1, 0.5, StopLastRate}},
		{name: "the last decision alone",
			probe: []int64{0}, r: []int64{5 * h},
			want: []float64{StopLastRate}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &features.Samples{}
			// Rows out of decision order, and a second window between them:
			// labels follow each window's probe order, not the row order.
			order := make([]int, len(c.r))
			for i := range order {
				order[i] = len(c.r) - 1 - i
			}
			for _, k := range order {
				s.WindowID = append(s.WindowID, 0, 1)
				s.WindowStart = append(s.WindowStart, 0, 86400)
				s.ChainNodes = append(s.ChainNodes, 1, 1)
				s.ProbeTime = append(s.ProbeTime, c.probe[k], 86400+c.probe[k])
				s.LabelRSec = append(s.LabelRSec, c.r[k], 10*h)
			}
			got, err := TargetStop.labels(s)
			if err != nil {
				t.Fatal(err)
			}
			for j, k := range order {
				if math.Abs(got[2*j]-c.want[k]) > 1e-12 {
					t.Errorf("row of decision %d: label %v, want %v (all %v)", k, got[2*j], c.want[k], got)
				}
				// Window 1 has a constant r of 10 h: waiting adds nothing
				// until its last decision.
				want1 := 0.0
				if k == len(c.r)-1 {
					want1 = StopLastRate
				}
				if got[2*j+1] != want1 {
					t.Errorf("other window, decision %d: label %v, want %v", k, got[2*j+1], want1)
				}
			}
		})
	}
}

// TestTargetStop_Rule checks the rule's parameter: λ is the threshold on
// the prediction, as τ is.
func TestTargetStop_Rule(t *testing.T) {
	if RuleScore(TargetStop, 2.5, 7200, 0) != 2.5 || ThresholdOf(TargetStop, 0.5) != 0.5 || ParamOf(TargetStop, 0.5) != 0.5 {
		t.Error("stop rule: submit when the prediction >= lambda")
	}
	if ParamName(TargetStop) != "lambda" || TargetStop.Classification() || TargetStop.Objective("reg:squarederror") != "reg:squarederror" {
		t.Error("stop is a regression with parameter lambda")
	}
	if got, err := ParseTarget("stop"); err != nil || got != TargetStop {
		t.Errorf("ParseTarget(stop) = %v, %v", got, err)
	}
	s := unitSamples([][]int64{{-3600, 7200}})
	op, err := ChooseOperatingPoint(TargetStop, []float64{3, 1}, s.LabelRSec, Units(s), 1, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	if c := op.ByChain["1"]; c.InterruptionReduction != 1 || c.Value > 3 || c.Value <= 1 || op.Param != "lambda" {
		t.Errorf("stop operating point %+v (param %s), want λ in (1, 3]: the early submission", c, op.Param)
	}
}

// TestTargetLabels_StopHorizon checks the label with a horizon: the
// later decision is the last one within the horizon, the next one when
// none is that close, and the last decision keeps StopLastRate.
func TestTargetLabels_StopHorizon(t *testing.T) {
	const h = 3600
	// Decisions at 0, 1 h, 2 h, 2 h 10 min, 2 h 20 min (P's end).
	probe := []int64{0, h, 2 * h, 2*h + 600, 2*h + 1200}
	r := []int64{-2 * h, -h, 0, 3 * h, 4 * h}
	s := &features.Samples{}
	for k := range probe {
		s.WindowID = append(s.WindowID, 0)
		s.WindowStart = append(s.WindowStart, 0)
		s.ChainNodes = append(s.ChainNodes, 1)
		s.ProbeTime = append(s.ProbeTime, probe[k])
		s.LabelRSec = append(s.LabelRSec, r[k])
	}
	for _, c := range []struct {
		horizon int64
		want    []float64
	}{
		{0, []float64{0, 0, 18, 6, StopLastRate}},
		// 30 min: nothing within it from 0 or 1 h: the next decision.
		{1800, []float64{0, 0, 4 / (1200.0 / h), 6, StopLastRate}},
		// 90 min: from 0 the 1 h decision; from 1 h the one at 2 h 20 min.
		{5400, []float64{0, 4 / (4800.0 / h), 4 / (1200.0 / h), 6, StopLastRate}},
	} {
		got, err := TargetStop.labelsWith(s, c.horizon)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("horizon %d s: labels %v, want %v", c.horizon, got, c.want)
				break
			}
		}
	}
}

// TestTargetLabels_StopPeak checks StopLabelPeak: the largest extra
// interruption in hours over the later decisions within the horizon (the
// next one at least), floored at 0, StopLastRate on the last decision.
func TestTargetLabels_StopPeak(t *testing.T) {
	const h = 3600
	// Decisions at 0, 1 h, 2 h, 2 h 10 min, 2 h 20 min (P's end).
	probe := []int64{0, h, 2 * h, 2*h + 600, 2*h + 1200}
	cases := []struct {
		name    string
		r       []int64
		horizon int64
		want    []float64
	}{
		{name: "next decision only: zero before the cliff",
			r: []int64{-2 * h, -h, 0, 3 * h, 4 * h}, horizon: 0,
			want: []float64{0, 0, 3, 1, StopLastRate}},
		{name: "90 min: the cliff is seen from 1 h on, by its size",
			r: []int64{-2 * h, -h, 0, 3 * h, 4 * h}, horizon: 5400,
			want: []float64{0, 4, 4, 1, StopLastRate}},
		{name: "3 h: every decision sees the largest interruption",
			r: []int64{-2 * h, -h, 0, 3 * h, 4 * h}, horizon: 3 * h,
			want: []float64{4, 4, 4, 1, StopLastRate}},
		{name: "a peak in between counts, not only the last decision",
			r: []int64{-h, -h, 5 * h, 2 * h, 0}, horizon: 3 * h,
			want: []float64{5, 5, 0, 0, StopLastRate}},
		{name: "a shrinking interruption costs nothing, not less",
			r: []int64{3 * h, 2 * h, h, h, h}, horizon: 3 * h,
			want: []float64{0, 0, 0, 0, StopLastRate}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &features.Samples{}
			// Rows in reverse decision order: labels follow the probe order.
			for k := len(probe) - 1; k >= 0; k-- {
				s.WindowID = append(s.WindowID, 0)
				s.WindowStart = append(s.WindowStart, 0)
				s.ChainNodes = append(s.ChainNodes, 1)
				s.ProbeTime = append(s.ProbeTime, probe[k])
				s.LabelRSec = append(s.LabelRSec, c.r[k])
			}
			got, err := TargetStop.labelsStop(s, c.horizon, StopLabelPeak)
			if err != nil {
				t.Fatal(err)
			}
			for k := range probe {
				row := len(probe) - 1 - k
				if math.Abs(got[row]-c.want[k]) > 1e-12 {
					t.Errorf("decision %d: label %v, want %v", k, got[row], c.want[k])
				}
			}
			// The default label is unchanged by the option's existence.
			rate, err := TargetStop.labelsStop(s, c.horizon, StopLabelRate)
			if err != nil {
				t.Fatal(err)
			}
			old := stopLabels(s, c.horizon)
			for i := range rate {
				if rate[i] != old[i] {
					t.Fatalf("rate label row %d: %v, want %v", i, rate[i], old[i])
				}
			}
		})
	}
}

func TestParseStopLabel(t *testing.T) {
	for in, want := range map[string]StopLabel{"": StopLabelRate, "rate": StopLabelRate, "peak": StopLabelPeak, "worst": StopLabelWorst} {
		if got, err := ParseStopLabel(in); err != nil || got != want {
			t.Errorf("ParseStopLabel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseStopLabel("max"); err == nil {
		t.Error("ParseStopLabel(max): no error")
	}
}

// TestTargetLabels_StopWorst checks StopLabelWorst: the largest max(r, 0)
// in hours over this decision and the later ones within the horizon (the
// next one at least); past the cliff the label stays.
func TestTargetLabels_StopWorst(t *testing.T) {
	const h = 3600
	// Decisions at 0, 1 h, 2 h, 2 h 10 min, 2 h 20 min (P's end).
	probe := []int64{0, h, 2 * h, 2*h + 600, 2*h + 1200}
	cases := []struct {
		name    string
		r       []int64
		horizon int64
		want    []float64
	}{
		{name: "next decision only: the cliff a step ahead, and past it",
			r: []int64{-2 * h, -h, 0, 3 * h, 4 * h}, horizon: 0,
			want: []float64{0, 0, 3, 4, 4}},
		{name: "90 min: the interruption coming, by its size",
			r: []int64{-2 * h, -h, 0, 3 * h, 4 * h}, horizon: 5400,
			want: []float64{0, 4, 4, 4, 4}},
		{name: "a peak in between counts; now counts",
			r: []int64{-h, -h, 5 * h, 2 * h, h}, horizon: 3 * h,
			want: []float64{5, 5, 5, 2, 1}},
		{name: "overlap everywhere is 0",
			r: []int64{-3 * h, -2 * h, -h, -h, -600}, horizon: 3 * h,
			want: []float64{0, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &features.Samples{}
			for k := len(probe) - 1; k >= 0; k-- {
				s.WindowID = append(s.WindowID, 0)
				s.WindowStart = append(s.WindowStart, 0)
				s.ChainNodes = append(s.ChainNodes, 1)
				s.ProbeTime = append(s.ProbeTime, probe[k])
				s.LabelRSec = append(s.LabelRSec, c.r[k])
			}
			got, err := TargetStop.labelsStop(s, c.horizon, StopLabelWorst)
			if err != nil {
				t.Fatal(err)
			}
			for k := range probe {
				if row := len(probe) - 1 - k; math.Abs(got[row]-c.want[k]) > 1e-12 {
					t.Errorf("decision %d: label %v, want %v", k, got[row], c.want[k])
				}
			}
		})
	}
}
