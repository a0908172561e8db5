package sim_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// leakSettings are the world-model settings the leakage test runs under.
type leakSettings struct {
	seenUsers   bool // Priority.FairShareSeenUsers
	fixedUsers  int  // Priority.FairShareUsers
	lookahead   bool // capacity inference not causal
	requireIdle bool // InferOptions.RequireIdle
}

// worldAt is the simulated state at t: the queue as squeue shows it
// (held jobs included, with priorities), the running set, the capacity,
// and each submitted job's inferred predecessor.
type worldAt struct {
	Snap  sim.Snapshot
	After []sim.JobID
}

// simulateTo infers dependencies and capacity from jobs (sorted by
// Submit), drops the capacity steps after t, and runs the simulation to t.
func simulateTo(tb testing.TB, cfg sim.Config, jobs []sim.Job, t int64, ls leakSettings) worldAt {
	tb.Helper()
	jobs = slices.Clone(jobs)
	sim.InferDependencies(jobs, sim.InferOptions{RequireIdle: ls.requireIdle, Nodes: cfg.Nodes})
	cfg.Priority.FairShareSeenUsers = ls.seenUsers
	cfg.Priority.FairShareUsers = ls.fixedUsers
	cfg.HeldInSnapshot = true
	steps := sim.InferCapacity(jobs, sim.CapacityOptions{Nodes: cfg.Nodes, BucketSec: 3600, Smooth: 3, Causal: !ls.lookahead})
	for len(steps) > 0 && steps[len(steps)-1].At > t {
		steps = steps[:len(steps)-1]
	}
	cfg.Capacity = steps
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), t); err != nil {
		tb.Fatal(err)
	}
	w := worldAt{Snap: s.Snapshot()}
	for _, j := range jobs {
		if j.Submit <= t {
			w.After = append(w.After, j.After)
		}
	}
	return w
}

// truncate returns the jobs submitted at or before t (jobs is sorted by
// Submit, so their IDs stay the same).
func truncate(jobs []sim.Job, t int64) []sim.Job {
	n, _ := slices.BinarySearchFunc(jobs, t+1, func(j sim.Job, t int64) int { return int(j.Submit - t) })
	return jobs[:n]
}

// leakTrace builds a trace of n jobs on a partition of nodes: users
// arrive over time, some submit chains, and the trace's starts come from
// a simulation of the real chains on a partition that loses nodes for a
// while (so inferred capacity and dependencies have something to find).
func leakTrace(tb testing.TB, cfg sim.Config, n int, seed uint64) []sim.Job {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]sim.Job, 0, n)
	at := int64(1_700_000_000)
	for len(jobs) < n {
		at += int64(r.IntN(1200))
		users := 2 + len(jobs)/15 // new users keep arriving
		u := int32(r.IntN(users))
		chain := 1
		if r.IntN(5) == 0 {
			chain = 2 + r.IntN(3)
		}
		for c := 0; c < chain && len(jobs) < n; c++ {
			limit := int64(600 + r.IntN(4)*1800)
			j := sim.Job{Name: "j", User: u, Nodes: int32(1 + r.IntN(cfg.Nodes/2)), LimitSec: limit,
				RunSec: int64(60 + r.IntN(int(limit))), Submit: at, After: sim.NoJob}
			if c > 0 {
				j.After = sim.JobID(len(jobs) - 1)
			}
			jobs = append(jobs, j)
		}
	}
	real := cfg
	real.Capacity = []sim.CapacityStep{{At: jobs[n/3].Submit, Nodes: cfg.Nodes - 3}, {At: jobs[n/2].Submit, Nodes: cfg.Nodes}}
	starts, _, err := sim.Replay(context.Background(), real, jobs)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range jobs {
		jobs[i].TraceStart, jobs[i].After = starts[i], sim.NoJob
	}
	return jobs
}

// TestLeakage_Synthetic: removing every job submitted after t (and every
// capacity step after t), with dependency and capacity inference run on
// what is left, must leave the simulated state at t unchanged under the
// causal settings; the fair-share scale over every user of the trace and
// the look-ahead capacity must be caught leaking.
func TestLeakage_Synthetic(t *testing.T) {
	p, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config
	cfg.Nodes = 16
	jobs := leakTrace(t, cfg, 600, 7)
	tests := []struct {
		name string
		ls   leakSettings
		leak bool
	}{
		{"Causal", leakSettings{seenUsers: true}, false},
		{"CausalRequireIdle", leakSettings{seenUsers: true, requireIdle: true}, false},
		{"FixedUsers", leakSettings{fixedUsers: 50}, false},
		{"AllUsersScale", leakSettings{}, true},
		{"LookaheadCapacity", leakSettings{seenUsers: true, lookahead: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diffs, held, deps := 0, 0, 0
			for k := 1; k < 20; k++ {
				at := jobs[k*len(jobs)/20].Submit + 1
				full := simulateTo(t, cfg, jobs, at, tt.ls)
				cut := simulateTo(t, cfg, truncate(jobs, at), at, tt.ls)
				for _, p := range full.Snap.Pending {
					if p.Held {
						held++
					}
				}
				for _, a := range full.After {
					if a != sim.NoJob {
						deps++
					}
				}
				if d := cmp.Diff(full, cut); d != "" {
					diffs++
					if !tt.leak {
						t.Errorf("state at %d differs with the future removed (-full +truncated):\n%s", at, d)
					}
				}
			}
			if held == 0 || deps == 0 {
				t.Fatalf("%d held jobs in the snapshots, %d inferred dependencies: the trace tests no dependency hold", held, deps)
			}
			if tt.leak && diffs == 0 {
				t.Errorf("no state differed: the test cannot see this leak")
			}
		})
	}
}

// TestLeakage_LS6 runs the same check on the LS6 trace at a few times,
// through FromTrace (the trace's real End times) under the causal
// settings.
func TestLeakage_LS6(t *testing.T) {
	if testing.Short() {
		t.Skip("LS6 leakage check skipped in -short mode")
	}
	tjobs := ls6test.Jobs(t)
	p, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config
	cfg.Priority.FairShareSeenUsers = true
	cfg.HeldInSnapshot = true
	slices.SortStableFunc(tjobs, func(a, b trace.Job) int { return a.Submit.Compare(b.Submit) })
	world := func(tj []trace.Job, at int64) worldAt {
		jobs, _, err := sim.FromTrace(tj, sim.FromTraceOptions{MaxNodes: cfg.Nodes, Infer: &sim.InferOptions{}})
		if err != nil {
			t.Fatal(err)
		}
		c := cfg
		steps := sim.InferCapacity(jobs, p.CapacityOptions(cfg.Nodes))
		for len(steps) > 0 && steps[len(steps)-1].At > at {
			steps = steps[:len(steps)-1]
		}
		c.Capacity = steps
		s, err := sim.New(c, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		w := worldAt{Snap: s.Snapshot()}
		for _, j := range jobs {
			if j.Submit <= at {
				w.After = append(w.After, j.After)
			}
		}
		return w
	}
	for _, frac := range []int{3, 5, 7} {
		at := tjobs[frac*len(tjobs)/10].Submit.Unix() + 1
		n, _ := slices.BinarySearchFunc(tjobs, at+1, func(j trace.Job, t int64) int { return int(j.Submit.Unix() - t) })
		if d := cmp.Diff(world(tjobs, at), world(tjobs[:n], at)); d != "" {
			t.Errorf("LS6 state at %d differs with the future removed (-full +truncated):\n%s", at, d)
		}
	}
}
