package advise

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// parityWorkload returns a synthetic workload of n jobs over span seconds
// from start on a cluster of nodes nodes: whole-minute limits (Slurm's
// unit), run times within them, ten users, no dependencies and no
// cancellations (see README.md, "Parity").
func parityWorkload(n int, start, span int64, nodes int32, seed uint64) []sim.Job {
	rng := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]sim.Job, n)
	for i := range jobs {
		limit := 60 * (10 + rng.Int64N(24*60))
		jobs[i] = sim.Job{
			Name: strconv.Itoa(i), User: int32(rng.IntN(10)), Nodes: 1 + rng.Int32N(nodes/2),
			Submit: start + rng.Int64N(span), LimitSec: limit, RunSec: 60 + rng.Int64N((limit-59)/2), After: sim.NoJob,
		}
	}
	return jobs
}

// parityTimeline builds the simulator's main timeline of the parity
// workload of n jobs, with run-time predictions made from the simulated run (so
// that the simulation is its own trace: sacct's ends are the ends
// PredictRunTimes saw). runTimes, when not nil, gives the options'
// RunTimes (the features.ModelEstimateName column) from the simulated
// jobs (their TraceStart set) and the window's job index.
func parityTimeline(t *testing.T, n int, runTimes func(jobs []sim.Job, idx []int) *features.RunTimes) (*features.Timeline, *features.Options) {
	t.Helper()
	ctx := context.Background()
	cfg := sim.DefaultConfig()
	cfg.Nodes = 16
	cfg.Priority.FairShareWeight = 0 // usage since the window start: not in 24 h of sacct
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Skipf("skipping: no zone data: %v", err)
	}
	start := int64(1_700_006_400) // a multiple of 600
	jobs := parityWorkload(n, start, 4*86400, 16, 7)
	opts := &features.Options{
		Config: cfg, Mode: sim.WindowCold, Start: start, IntervalSec: 3600, Windows: 1,
		WarmupSec: 30 * 3600, WorkloadSec: 5 * 86400, Probes: 7, ChainNodes: []int{4},
		Location: loc, RecentStarts: 1 << 16, // every start: no ties at the ring's edge
		ChainLimitSec: 12 * 3600,
	}
	if err := features.Normalise(opts); err != nil {
		t.Fatal(err)
	}
	user := features.ChainUser(jobs)
	// Pass 1: the simulated starts become the jobs' trace starts.
	tl, err := features.NewTimeline(ctx, jobs, opts, 0, 4, user)
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Advance(ctx, start+10*86400); err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if st, ok := tl.Sim().Started(sim.JobID(i)); ok {
			jobs[i].TraceStart = st
		}
	}
	sim.PredictRunTimes(jobs, sim.RunTimeHistory{})
	if runTimes != nil {
		opts.RunTimes = runTimes(jobs, tl.JobIndex())
	}
	// Pass 2: the same schedule (predictions never change it).
	if tl, err = features.NewTimeline(ctx, jobs, opts, 0, 4, user); err != nil {
		t.Fatal(err)
	}
	return tl, opts
}

// numChainForTest is the size of the chain group (features' schema).
const numChainForTest = 10

// TestParity_SimulatorAndLive builds states in the simulator, renders
// them as squeue --json and sacct --parsable2, reads them back through
// the live path and checks that every feature, the wide columns
// (features build --wide; LiveOptions.Wide) included, is bit for bit the
// same.
func TestParity_SimulatorAndLive(t *testing.T) {
	ctx := context.Background()
	tl, opts := parityTimeline(t, 400, nil)
	opts.Wide = true
	p := tl.P()
	names := opts.FeatureNames()
	want := make([]float64, len(names))
	got := make([]float64, len(names))
	checked, started, queued, ahead := 0, 0, 0, 0
	for k := int64(1); k < 14*6*6; k += 6 + k%5 { // every 1 to 1.7 h from 10 minutes after P's submission
		at := p.Submit + k*600
		if err := tl.Advance(ctx, at); err != nil {
			t.Fatal(err)
		}
		if err := tl.Features(ctx, want); err != nil {
			t.Fatal(err)
		}
		s := tl.Sim()
		if _, ok := s.Ended(tl.PID()); ok {
			break
		}
		snap := s.Snapshot()
		sq := renderSqueueJSON(s, &snap, k%2 == 0)
		sa := renderSacct(s, false)
		queue, err := ParseSqueueJSON(bytes.NewReader(sq))
		if err != nil {
			t.Fatal(err)
		}
		hist, bad, err := ParseSacct(ctx, bytes.NewReader(sa), time.UTC)
		if err != nil || bad != 0 {
			t.Fatalf("sacct: %d bad rows, %v", bad, err)
		}
		obs := &Observation{Now: at, Queue: queue, History: hist, Nodes: opts.Config.Nodes, Capacity: snap.Capacity}
		st, ch, err := BuildState(obs, strconv.FormatInt(jobRaw(tl.PID()), 10), LiveOptions{
			Config: opts.Config, Location: opts.Location, RecentStarts: opts.RecentStarts, PredictRunTimes: true, Wide: true,
		})
		if err != nil {
			t.Fatalf("at %d: %v", at, err)
		}
		if err := features.Vector(ctx, got, st); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("at P.submit+%dmin (%d pending, %d running): %s: live %v, simulator %v",
					k*10, len(snap.Pending), len(snap.Running), names[i], got[i], want[i])
			}
		}
		if ch.Started {
			started++
		}
		if len(snap.Pending) > 0 {
			queued++
		}
		if want[features.NumQueueStats+numChainForTest] > 0 { // ahead_jobs
			ahead++
		}
		checked++
	}
	if checked < 20 || started == 0 || checked == started || queued == 0 || ahead == 0 {
		t.Fatalf("checked %d decisions, %d with P started, %d with a queue, %d with jobs ahead of Q: want every case",
			checked, started, queued, ahead)
	}
	t.Logf("%d decisions (%d with P running, %d with jobs ahead of Q), %d features each, bit for bit", checked, started, ahead, len(names))
}
