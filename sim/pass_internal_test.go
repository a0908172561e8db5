package sim

import (
	"math"
	"testing"
)

// TestBand: a pass's band is the one formula 1e-9·(1 + |key| + |age term|
// + |weights|), up to rounding, and exactly that at key 0; without an age
// weight the age term is 0.
func TestBand(t *testing.T) {
	for _, pc := range []Priority{
		{SizeWeight: 1000, AgeWeight: 500, FairShareWeight: 2000, MaxAgeSec: 7 * 86400},
		{SizeWeight: -3, AgeWeight: -1e6, FairShareWeight: 0, MaxAgeSec: 3600},
		{SizeWeight: 1, MaxAgeSec: 86400},
	} {
		s := &Sim{now: 1_700_000_000, idx: &prioIndex{base: 1_690_000_000}}
		s.cfg.Priority = pc
		it := &passIter{s: s, bandBase: s.bandBase()}
		age := 0.0
		if pc.AgeWeight != 0 {
			age = math.Abs(pc.AgeWeight * float64(s.now-s.idx.base) / float64(pc.MaxAgeSec))
		}
		weights := math.Abs(pc.SizeWeight) + math.Abs(pc.AgeWeight) + math.Abs(pc.FairShareWeight)
		for _, key := range []float64{0, 1, -1, 12345.678, -9.87e6, 1e-300} {
			want := 1e-9 * (1 + math.Abs(key) + age + weights)
			got := it.band(key)
			if key == 0 && got != want || math.Abs(got-want) > 1e-15*want {
				t.Errorf("%+v: band(%g) = %g, want %g", pc, key, got, want)
			}
		}
	}
}
