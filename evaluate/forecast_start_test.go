package evaluate

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestMedianStart: A holds both nodes from 0 with a 10 h limit; B (2
// nodes) is submitted at 1 h. Every rollout starts B when A's drawn run
// time ends, in [1 h, 10 h]; the median is there, the same for the same
// seed, and does not depend on A's true run time (unknowable at 1 h).
func TestMedianStart(t *testing.T) {
	ctx := context.Background()
	start := func(aRun int64) int64 {
		a := simtest.Job(2, 0, 10*3600, aRun)
		b := simtest.Job(2, 3600, 3600, 600)
		jobs := []sim.Job{a, b}
		s, err := sim.New(simtest.Cluster(2), jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunBefore(ctx, 3600); err != nil {
			t.Fatal(err)
		}
		f := &Forecaster{RT: testRunTimes(jobs), K: 15, Seed: 7, Correlation: DefaultCorrelation}
		at, ok, err := f.MedianStart(ctx, s, 1)
		if err != nil || !ok {
			t.Fatalf("MedianStart: %d %v %v", at, ok, err)
		}
		again, _, _ := f.MedianStart(ctx, s, 1)
		if again != at {
			t.Fatalf("not deterministic: %d then %d", at, again)
		}
		if st, _ := s.Started(1); st != 0 {
			t.Fatalf("the simulation itself moved on: B started at %d", st)
		}
		return at
	}
	at := start(2 * 3600)
	if at < 3600 || at > 10*3600 {
		t.Fatalf("median start %d s, want within [3600, 36000]", at)
	}
	if other := start(9 * 3600); other != at {
		t.Errorf("A's true run time changed the forecast: %d vs %d", other, at)
	}
}
