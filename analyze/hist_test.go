package analyze

import (
	"math"
	"testing"
)

func TestHist_Quantile(t *testing.T) {
	tests := []struct {
		Name   string
		Values []int64
		P      float64
		Want   float64
	}{
		{"Empty", nil, 0.5, 0},
		{"ExactBelowAnHour", []int64{0, 0, 0, 0, 300, 1200, 1200, 1800, 1800}, 0.5, 300},
		{"NearestRank", []int64{10, 20, 30, 40}, 0.5, 20},
		{"Max", []int64{10, 20, 30, 40}, 1, 40},
		{"NegativeIsZero", []int64{-5, 7}, 0.5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			var h hist
			for _, v := range tt.Values {
				h.add(v)
			}
			if got := h.quantile(tt.P); got != tt.Want {
				t.Errorf("quantile(%v) of %v = %v, want %v", tt.P, tt.Values, got, tt.Want)
			}
		})
	}
}

// TestHist_LogBins checks that a duration above an hour is reported
// within 0.5 % below its value.
func TestHist_LogBins(t *testing.T) {
	for _, v := range []int64{3600, 3601, 7200, 86400, 48 * 3600, 1e8} {
		var h hist
		h.add(v)
		got := h.quantile(0.5)
		if got > float64(v) || (float64(v)-got)/float64(v) > 0.005+1e-9 {
			t.Errorf("quantile of %d = %v: want within 0.5 %% below", v, got)
		}
		if math.IsNaN(got) {
			t.Fatal("NaN")
		}
	}
}

func TestLimitClass(t *testing.T) {
	tests := []struct {
		Sec  int64
		Want string
	}{{-1, "unlimited"}, {0, "unlimited"}, {3600, "<=1h"}, {3601, "1-6h"}, {6 * 3600, "1-6h"}, {48 * 3600, "24-48h"}, {48*3600 + 1, ">48h"}}
	for _, tt := range tests {
		if got := limitClass(tt.Sec); got != tt.Want {
			t.Errorf("limitClass(%d) = %q, want %q", tt.Sec, got, tt.Want)
		}
	}
}
