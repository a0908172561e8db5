package sim_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mirage-hpc/mirage/sim"
)

func TestCompareWaits(t *testing.T) {
	tests := []struct {
		Name              string
		Actual, Simulated []int64
		Months            []string
		Want              sim.Fidelity
	}{
		{Name: "Empty", Want: sim.Fidelity{}},
		{
			Name:   "Perfect",
			Actual: []int64{0, 100, 200, 4000}, Simulated: []int64{0, 100, 200, 4000},
			Want: sim.Fidelity{Jobs: 4, Spearman: 1, Within2x: 1, Within2xJobs: 3},
		},
		{
			// Errors 10 10 150 700 3600. Over a minute: 300 (150 is exactly
			// half: in), 600 (1300 > 1200: out), 7200 (3600: in). Ranks of
			// actual 1.5 1.5 3 4 5, simulated 1..5: sxy 9.5, sxx 9.5, syy 10.
			Name:   "TiesAndErrors",
			Actual: []int64{10, 10, 300, 600, 7200}, Simulated: []int64{0, 20, 150, 1300, 3600},
			Want: sim.Fidelity{
				Jobs: 5, MAESec: 894, MedianAbsErrSec: 150,
				Spearman: 9.5 / math.Sqrt(95), Within2x: 2.0 / 3, Within2xJobs: 3,
			},
		},
		{
			// Errors 3600 100 3500; ranks 1 2 3 vs 3 1 2: sxy -1, sxx = syy = 2.
			Name:   "Reversed",
			Actual: []int64{0, 100, 3600}, Simulated: []int64{3600, 0, 100},
			Want: sim.Fidelity{Jobs: 3, MAESec: 2400, MedianAbsErrSec: 3500, Spearman: -0.5, Within2xJobs: 2},
		},
		{
			Name:   "ConstantSimulated",
			Actual: []int64{30, 90, 600, 100}, Simulated: []int64{0, 0, 0, 0},
			Want: sim.Fidelity{Jobs: 4, MAESec: 205, MedianAbsErrSec: 95, Spearman: 0, Within2xJobs: 3},
		},
		{
			Name:   "OneJob",
			Actual: []int64{120}, Simulated: []int64{240},
			Want: sim.Fidelity{Jobs: 1, MAESec: 120, MedianAbsErrSec: 120, Within2x: 1, Within2xJobs: 1},
		},
		{
			// The "Reversed" jobs in 2022-09 and the "TiesAndErrors" jobs in
			// 2022-10, interleaved. Overall: errors 10 10 100 150 700 3500
			// 3600 3600 (sum 11670, median (150+700)/2). Ranks of actual
			// 2.5 1 2.5 4 5 6 7 8, of simulated 1.5 7.5 3 1.5 5 6 4 7.5:
			// sxy 11.75, sxx 41.5, syy 41. Over a minute: 100 300 600 3600
			// 7200, of which 300 and 7200 are within 2x.
			Name:      "PerMonth",
			Actual:    []int64{10, 0, 10, 100, 300, 600, 3600, 7200},
			Simulated: []int64{0, 3600, 20, 0, 150, 1300, 100, 3600},
			Months:    []string{"2022-10", "2022-09", "2022-10", "2022-09", "2022-10", "2022-10", "2022-09", "2022-10"},
			Want: sim.Fidelity{
				Jobs: 8, MAESec: 11670.0 / 8, MedianAbsErrSec: 425, Spearman: 11.75 / math.Sqrt(41.5*41),
				Within2x: 2.0 / 5, Within2xJobs: 5,
				PerMonth: []sim.MonthFidelity{
					{Month: "2022-09", Fidelity: sim.Fidelity{Jobs: 3, MAESec: 2400, MedianAbsErrSec: 3500, Spearman: -0.5, Within2xJobs: 2}},
					{Month: "2022-10", Fidelity: sim.Fidelity{
						Jobs: 5, MAESec: 894, MedianAbsErrSec: 150,
						Spearman: 9.5 / math.Sqrt(95), Within2x: 2.0 / 3, Within2xJobs: 3,
					}},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got := sim.CompareWaits(tt.Actual, tt.Simulated, tt.Months)
			if diff := cmp.Diff(tt.Want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("CompareWaits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		Name string
		X, Y []int64
		Want float64
	}{
		{Name: "Empty", Want: 0},
		{Name: "One", X: []int64{1}, Y: []int64{2}, Want: 0},
		{Name: "ConstantX", X: []int64{5, 5, 5}, Y: []int64{1, 2, 3}, Want: 0},
		{Name: "Monotone", X: []int64{1, 2, 3, 40}, Y: []int64{10, 20, 30, 31}, Want: 1},
		{Name: "Antitone", X: []int64{1, 2, 3}, Y: []int64{9, 8, 7}, Want: -1},
		// Ranks 2 2 2 4.5 4.5 6 and 3 1 3 3 6 5: sxy 11, sxx 15, syy 15.5.
		{Name: "Ties", X: []int64{5, 5, 5, 100, 100, 900}, Y: []int64{30, 0, 30, 30, 500, 200}, Want: 11 / math.Sqrt(15*15.5)},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			if got := sim.Spearman(tt.X, tt.Y); math.Abs(got-tt.Want) > 1e-12 {
				t.Errorf("Spearman = %v, want %v", got, tt.Want)
			}
		})
	}
}

func TestCompareWaits_PanicsOnLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	sim.CompareWaits([]int64{1}, nil, nil)
}

func TestFidelity_JSON(t *testing.T) {
	f := sim.CompareWaits([]int64{120, 0}, []int64{60, 0}, []string{"2022-11", "2022-11"})
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jobs":2,"wait_mae_sec":30,"wait_median_abs_err_sec":30,"wait_spearman":1,"within_2x":1,"within_2x_jobs":1,` +
		`"per_month":[{"month":"2022-11","jobs":2,"wait_mae_sec":30,"wait_median_abs_err_sec":30,"wait_spearman":1,"within_2x":1,"within_2x_jobs":1}]}`
	if string(b) != want {
		t.Errorf("JSON\ngot  %s\nwant %s", b, want)
	}
}
