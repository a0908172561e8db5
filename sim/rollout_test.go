package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// rolloutJobs is a queue on 2 nodes at t = 50: a (2 nodes) runs [0, 100)
// with a limit of 200, b (1 node) pends behind it, c (1 node) waits for b,
// and d (1 node) arrives at 60.
func rolloutJobs() []sim.Job {
	c := simtest.Job(1, 20, 100, 50)
	c.After = 1
	return []sim.Job{simtest.Job(2, 0, 200, 100), simtest.Job(1, 10, 100, 80), c, simtest.Job(1, 60, 100, 10)}
}

func TestSim_Rollout(t *testing.T) {
	ctx := context.Background()
	cfg := simtest.Cluster(2)
	main := mustSim(t, cfg, rolloutJobs())
	if err := main.RunBefore(ctx, 50); err != nil {
		t.Fatal(err)
	}

	t.Run("Live", func(t *testing.T) {
		want := []sim.LiveJob{{ID: 0, Running: true, Start: 0}, {ID: 1}, {ID: 2}}
		if diff := cmp.Diff(want, main.Live(nil)); diff != "" {
			t.Fatalf("live jobs at 50 (-want +got):\n%s", diff)
		}
	})

	t.Run("DropsArrivalsAndOverrides", func(t *testing.T) {
		r := main.Rollout(nil, []sim.RunOverride{{ID: 1, RunSec: 30}, {ID: 0, RunSec: 70}, {ID: 2, RunSec: 500}})
		if err := r.Run(ctx); err != nil {
			t.Fatal(err)
		}
		// a ends at 70 (overridden), b runs [70, 100), c [100, 200) (500
		// clamped to its limit), d never arrives.
		want := []int64{0, 70, 100, -1}
		if diff := cmp.Diff(want, startsOf(r)); diff != "" {
			t.Fatalf("rollout starts (-want +got):\n%s", diff)
		}
		if e, _ := r.Ended(2); e != 200 {
			t.Errorf("c ends at %d, want 200 (run clamped to its limit)", e)
		}
	})

	t.Run("EndNotBeforeNow", func(t *testing.T) {
		r := main.Rollout(nil, []sim.RunOverride{{ID: 0, RunSec: 10}})
		if err := r.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if e, _ := r.Ended(0); e != 50 {
			t.Errorf("a ends at %d, want 50 (an override in the past ends it now)", e)
		}
	})

	t.Run("OriginalUntouched", func(t *testing.T) {
		_ = main.Rollout(nil, []sim.RunOverride{{ID: 0, RunSec: 70}})
		m := main.Clone(nil)
		if err := m.Run(ctx); err != nil {
			t.Fatal(err)
		}
		// a ends at 100; b [100, 180); d arrives at 60 and starts at 100
		// too; c after b at 180.
		want := []int64{0, 100, 180, 100}
		if diff := cmp.Diff(want, startsOf(m)); diff != "" {
			t.Fatalf("original schedule after a rollout (-want +got):\n%s", diff)
		}
	})

	t.Run("RunUntilStartedBy", func(t *testing.T) {
		r := main.Rollout(nil, nil)
		q, err := r.Submit(simtest.Job(2, 50, 100, 100))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := r.RunUntilStartedBy(ctx, q, 150); err != nil || ok {
			t.Fatalf("Q started by 150: %v, %v; want not yet", ok, err)
		}
		if r.Now() > 150 {
			t.Fatalf("clock %d past the deadline 150", r.Now())
		}
		at, ok, err := r.RunUntilStartedBy(ctx, q, 1000)
		if err != nil || !ok || at != 230 {
			t.Fatalf("Q starts at %d (%v, %v), want 230: after a, b and c", at, ok, err)
		}
	})

	t.Run("NeverStarts", func(t *testing.T) {
		r := main.Rollout(nil, nil)
		q, err := r.Submit(simtest.Job(2, 50, 100, 100))
		if err != nil {
			t.Fatal(err)
		}
		r2 := r.Rollout(nil, nil)
		if _, _, err := r2.RunUntilStartedBy(ctx, q, 100); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Started(q); ok {
			t.Fatal("a rollout of a rollout changed its parent")
		}
	})
}

func TestSim_RolloutDropsUnannouncedCapacity(t *testing.T) {
	ctx := context.Background()
	cfg := simtest.Cluster(2)
	// Node failure at 40 (inferred: unannounced), repair at 300 (announced).
	cfg.Capacity = []sim.CapacityStep{{At: 40, Nodes: 1, Unannounced: true}, {At: 300, Nodes: 2}}
	jobs := []sim.Job{simtest.Job(2, 0, 100, 60), simtest.Job(1, 30, 100, 10)}
	main := mustSim(t, cfg, jobs)
	if err := main.RunBefore(ctx, 20); err != nil {
		t.Fatal(err)
	}
	q, err := main.Submit(simtest.Job(2, 20, 100, 50))
	if err != nil {
		t.Fatal(err)
	}
	r := main.Rollout(nil, nil)
	at, ok, err := r.RunUntilStartedBy(ctx, q, 1000)
	if err != nil || !ok || at != 60 {
		t.Fatalf("rollout: Q starts at %d (%v, %v), want 60 (the failure at 40 is unknown at 20)", at, ok, err)
	}
	if _, ok := r.Started(1); ok {
		t.Fatal("rollout: the trace job arriving at 30 started")
	}
	m := main.Clone(nil)
	at, err = m.RunUntilStarted(ctx, q)
	if err != nil || at != 300 {
		t.Fatalf("main: Q starts at %d (%v), want 300 (after the repair)", at, err)
	}
	if _, _, err := main.Rollout(nil, nil).RunUntilStartedBy(ctx, 1, 1000); !errors.Is(err, sim.ErrNeverStarts) {
		t.Fatalf("a future trace job in a rollout: %v, want ErrNeverStarts", err)
	}
}

func TestSim_SubmitBatch(t *testing.T) {
	ctx := context.Background()
	cfg := simtest.Cluster(2)
	a := mustSim(t, cfg, rolloutJobs())
	b := mustSim(t, cfg, rolloutJobs())
	for _, s := range []*sim.Sim{a, b} {
		if err := s.RunBefore(ctx, 50); err != nil {
			t.Fatal(err)
		}
	}
	extra := []sim.Job{simtest.Job(1, 70, 100, 30), simtest.Job(2, 40, 100, 20)}
	first, err := a.SubmitBatch(extra)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range extra {
		id, err := b.Submit(j)
		if err != nil {
			t.Fatal(err)
		}
		if id != first+sim.JobID(i) {
			t.Fatalf("job %d: Submit gave ID %d, SubmitBatch %d", i, id, first+sim.JobID(i))
		}
	}
	for _, s := range []*sim.Sim{a, b} {
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(startsOf(b), startsOf(a)); diff != "" {
		t.Fatalf("SubmitBatch schedule differs from Submit's (-Submit +SubmitBatch):\n%s", diff)
	}
	dep := simtest.Job(1, 50, 100, 10)
	dep.After = 0
	if _, err := a.SubmitBatch([]sim.Job{dep}); !errors.Is(err, sim.ErrInfeasibleJob) {
		t.Fatalf("a dependency in SubmitBatch: %v, want ErrInfeasibleJob", err)
	}
}
