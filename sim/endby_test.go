package sim_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestSim_EndBy: a running job told to end earlier ends then and frees
// its nodes for the next job (which starts at once, as at any end); a
// later time, a job not running and a clone taken before are unchanged.
func TestSim_EndBy(t *testing.T) {
	ctx := context.Background()
	cfg := sim.DefaultConfig()
	cfg.Nodes = 1
	jobs := []sim.Job{
		{Name: "a", User: 0, Nodes: 1, Submit: 0, LimitSec: 1000, RunSec: 1000, After: sim.NoJob},
		{Name: "b", User: 1, Nodes: 1, Submit: 10, LimitSec: 100, RunSec: 100, After: sim.NoJob},
	}
	s := mustSim(t, cfg, jobs)
	if err := s.RunUntil(ctx, 50); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EndBy(1, 60); err == nil {
		t.Error("EndBy of a pending job: no error")
	}
	before := s.Clone(nil)
	if moved, err := s.EndBy(0, 5000); moved || err != nil {
		t.Errorf("EndBy after the end: moved %v, %v", moved, err)
	}
	if moved, err := s.EndBy(0, 300); !moved || err != nil {
		t.Fatalf("EndBy(300): moved %v, %v", moved, err)
	}
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if end, _ := s.Ended(0); end != 300 {
		t.Errorf("a ended at %d, want 300", end)
	}
	if st, _ := s.Started(1); st != 300 {
		t.Errorf("b started at %d, want 300", st)
	}
	if err := before.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if end, _ := before.Ended(0); end != 1000 {
		t.Errorf("the clone's a ended at %d, want 1000", end)
	}
}
