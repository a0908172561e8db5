package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestMainInterval: a cycling scheduler (MainIntervalSec) starts a job
// that could start at once at the next multiple of its interval; the
// event-driven one at once. A job that ends frees its nodes for the next
// cycle, not the same instant.
func TestMainInterval(t *testing.T) {
	jobs := []sim.Job{
		{Name: "a", User: 0, Nodes: 4, Submit: 100, LimitSec: 1000, RunSec: 500, After: sim.NoJob},
		{Name: "b", User: 1, Nodes: 4, Submit: 150, LimitSec: 1000, RunSec: 100, After: sim.NoJob}, // waits for a
		{Name: "c", User: 2, Nodes: 1, Submit: 1210, LimitSec: 100, RunSec: 10, After: sim.NoJob},
	}
	cfg := sim.DefaultConfig()
	cfg.Nodes, cfg.Backfill.Flavour = 4, sim.BackfillNone
	for _, c := range []struct {
		interval int64
		want     []int64
	}{
		{0, []int64{100, 600, 1210}},
		{300, []int64{300, 900, 1500}},
		{60, []int64{120, 660, 1260}},
	} {
		cfg.MainIntervalSec = c.interval
		starts, _, err := sim.Replay(context.Background(), cfg, jobs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if starts[i] != c.want[i] {
				t.Errorf("interval %d s: job %s starts at %d, want %d", c.interval, jobs[i].Name, starts[i], c.want[i])
			}
		}
	}
	cfg.MainIntervalSec = -1
	if err := cfg.Validate(); err == nil {
		t.Error("a negative interval validates")
	}
}
