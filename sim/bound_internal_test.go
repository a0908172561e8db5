package sim

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestExp2Upper: exp2Upper bounds 2^x from above, by at most a table
// step (and a rounding), over the whole range of fair-share exponents.
func TestExp2Upper(t *testing.T) {
	step := math.Exp2(1.0 / exp2Steps)
	check := func(t interface{ Fatalf(string, ...any) }, x float64) {
		got, want := exp2Upper(x), math.Exp2(x)
		if got < want*(1-1e-15) || got > want*step*(1+1e-15) {
			t.Fatalf("exp2Upper(%v) = %v, 2^x = %v: want within [2^x, 2^x * %v]", x, got, want, step)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -1.0 / exp2Steps, -1, -1 - 1e-12, -0.5, -999.999, -1000, -1001, -1e9} {
		check(t, x)
	}
	if got := exp2Upper(math.NaN()); !math.IsNaN(got) {
		t.Fatalf("exp2Upper(NaN) = %v", got)
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, -rapid.Float64Range(0, 1100).Draw(t, "-x"))
	})
}
