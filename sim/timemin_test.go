package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// timeMinQueue is testdata/time_min.test's queue before Q: r1 (3 of 4
// nodes for 1 h) running, A (all 4 nodes for 1 h) reserved at 3600.
func timeMinQueue(t *testing.T) *simtest.Harness {
	t.Helper()
	cfg := simtest.Cluster(4)
	cfg.Backfill.Flavour, cfg.Backfill.IntervalSec, cfg.Backfill.WindowSec, cfg.Backfill.ResolutionSec = sim.BackfillConservative, 600, 2*86400, 60
	r1 := simtest.Job(3, 0, 3600, 3600)
	a := simtest.Job(4, 0, 3600, 3600)
	return simtest.MustHarness(t, cfg, []sim.Job{r1, a})
}

// TestTimeMin_GrantedLimit: Q (1 node, 48 h, --time-min 30 min) starts
// at 0 by backfill under the largest limit that delays A's reservation
// at 3600: Limit and Snapshot say 3600 s; Q is killed at it. Without a
// time-min, or with one longer than the gap, it waits until A's end at
// 7200 (EstimatedStart plans with the time-min too).
func TestTimeMin_GrantedLimit(t *testing.T) {
	ctx := context.Background()
	q := simtest.Job(1, 0, 48*3600, 48*3600)
	q.Name = "Q"
	for _, tt := range []struct {
		timeMin, start, limit, end int64
	}{
		{0, 7200, 48 * 3600, 7200 + 48*3600},
		{1800, 0, 3600, 3600},
		{3600, 0, 3600, 3600}, // the minimum is the gap exactly
		// Too long for the gap: after A, where the main pass starts it
		// with its full limit.
		{5400, 7200, 48 * 3600, 7200 + 48*3600},
	} {
		h := timeMinQueue(t)
		if err := h.Sim.RunBefore(ctx, 0); err != nil {
			t.Fatal(err)
		}
		qq := q
		qq.TimeMinSec = tt.timeMin
		c := h.Sim.Clone(nil) // after t=0's passes: r1 runs, A waits
		if err := c.RunUntil(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if est, ok := c.EstimatedStart(qq); !ok || est != tt.start {
			t.Errorf("time-min %d: EstimatedStart = %d, %v; want %d", tt.timeMin, est, ok, tt.start)
		}
		id, err := h.Submit(qq)
		if err != nil {
			t.Fatal(err)
		}
		start, err := h.Sim.RunUntilStarted(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		lim, ok := h.Sim.Limit(id)
		if start != tt.start || !ok || lim != tt.limit {
			t.Errorf("time-min %d: start %d limit %d (%v), want %d and %d", tt.timeMin, start, lim, ok, tt.start, tt.limit)
		}
		for _, r := range h.Sim.Snapshot().Running {
			if r.ID == id && r.LimitSec != tt.limit {
				t.Errorf("time-min %d: Snapshot limit %d, want %d", tt.timeMin, r.LimitSec, tt.limit)
			}
		}
		if err := h.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if end, _ := h.End(id); end != tt.end {
			t.Errorf("time-min %d: Q ended at %d, want %d", tt.timeMin, end, tt.end)
		}
		if err := h.Complete(); err != nil {
			t.Error(err)
		}
	}
}
