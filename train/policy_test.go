package train

import (
	"math"
	"testing"
)

func TestThresholdPolicy(t *testing.T) {
	tests := []struct {
		theta float64
		r     []float64
		want  int
	}{
		{0.5, nil, -1},
		{0.5, []float64{-3, -1, -0.5, 2}, 2}, // -0.5 >= -0.5: submit at the boundary
		{0.5, []float64{-3, -0.51, 0.1}, 2},
		{0.5, []float64{-3, -2}, -1},
		{0, []float64{-0.1, 0}, 1},
		{2, []float64{-3, -1.9}, 1},
		{0.5, []float64{math.NaN(), 0}, 1}, // NaN never submits
	}
	for _, tt := range tests {
		if got := FirstSubmit(ThresholdPolicy{ThetaHours: tt.theta}, tt.r); got != tt.want {
			t.Errorf("θ=%v r=%v: FirstSubmit = %d, want %d", tt.theta, tt.r, got, tt.want)
		}
	}
	if DefaultPolicy().ThetaHours != 0.5 {
		t.Errorf("default θ = %v", DefaultPolicy().ThetaHours)
	}
}
