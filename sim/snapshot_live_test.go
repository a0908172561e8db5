package sim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mirage-hpc/mirage/sim"
)

// TestFromQueue_Snapshot rebuilds simulations from their snapshots at
// several decision times and checks that the rebuilt one shows the same
// queue (in the same priority order) and gives the same start estimates.
func TestFromQueue_Snapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := sim.DefaultConfig()
	cfg.Nodes = 12
	cfg.Priority.FairShareWeight = 0
	jobs := make([]sim.Job, 300)
	for i := range jobs {
		limit := 60 * (5 + rng.Int64N(600))
		jobs[i] = sim.Job{User: int32(rng.IntN(5)), Nodes: 1 + rng.Int32N(6), Submit: 1_000_000 + rng.Int64N(86400),
			LimitSec: limit, RunSec: 60 + rng.Int64N(limit/2), After: sim.NoJob}
	}
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	probe := sim.Job{User: 2, Nodes: 5, LimitSec: 7200, After: sim.NoJob}
	queued := 0
	for at := int64(1_003_600); at < 1_086_400; at += 7 * 600 {
		if err := s.RunBefore(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		snap := s.Snapshot()
		q := sim.Queue{Now: at, Capacity: snap.Capacity}
		for _, r := range snap.Running {
			q.Jobs = append(q.Jobs, sim.Job{User: r.User, Nodes: r.Nodes, LimitSec: r.LimitSec, Submit: r.Submit, TraceStart: r.Start})
		}
		for _, p := range snap.Pending { // by priority: ties then break by ID alike
			q.Jobs = append(q.Jobs, sim.Job{User: p.User, Nodes: p.Nodes, LimitSec: p.LimitSec, Submit: p.Submit, Eligible: p.Eligible})
		}
		if len(snap.Pending) > 1 {
			queued++
		}
		r, err := sim.FromQueue(cfg, q)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Snapshot()
		if got.FreeNodes != snap.FreeNodes || len(got.Pending) != len(snap.Pending) || len(got.Running) != len(snap.Running) {
			t.Fatalf("at %d: rebuilt %d free, %d pending, %d running; want %d, %d, %d", at,
				got.FreeNodes, len(got.Pending), len(got.Running), snap.FreeNodes, len(snap.Pending), len(snap.Running))
		}
		for i := range got.Pending {
			g, w := got.Pending[i], snap.Pending[i]
			if g.Submit != w.Submit || g.Eligible != w.Eligible || g.Nodes != w.Nodes || g.Priority != w.Priority {
				t.Fatalf("at %d: pending %d rebuilt %+v, want %+v", at, i, g, w)
			}
		}
		probe.Submit = at
		e1, ok1 := s.EstimatedStart(probe)
		e2, ok2 := r.EstimatedStart(probe)
		if e1 != e2 || ok1 != ok2 {
			t.Fatalf("at %d: rebuilt estimate %d %v, want %d %v", at, e2, ok2, e1, ok1)
		}
	}
	if queued < 5 {
		t.Fatalf("only %d decision times with a queue", queued)
	}
}
