package sim_test

import (
	"context"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// TestProperty_PassOrderEqualsSort: at random times of random workloads
// (every priority factor, age caps, fair-share, held and cancelled jobs),
// the incremental priority index yields the pending jobs in exactly the
// order of a full sort by priority, submission and ID.
func TestProperty_PassOrderEqualsSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		s, err := sim.New(cfg, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		at := s.Now()
		for range rapid.IntRange(1, 40).Draw(t, "checks") {
			at += rapid.Int64Range(0, 4*3600).Draw(t, "step")
			if err := s.RunUntil(ctx, at); err != nil {
				t.Fatal(err)
			}
			want, got := sim.SortedOrder(s), sim.PassOrder(s)
			if !slices.Equal(want, got) {
				t.Fatalf("at %d: pass order %v, sorted %v", at, got, want)
			}
			if rapid.Bool().Draw(t, "clone?") { // a clone rebuilds its index
				s = s.Clone(nil)
			}
		}
	})
}

// TestProperty_SlotPlanEqualsSteps: the slot grid plans exactly as the
// step list: the same schedule, and the same EstimatedStart at random
// times, on random workloads, half of them crowded (a few nodes, a
// window of a few slots, every job planned) so that plans fill up.
func TestProperty_SlotPlanEqualsSteps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		if rapid.Bool().Draw(t, "crowded") {
			cfg.Backfill.ResolutionSec = rapid.SampledFrom([]int64{60, 600, 1800}).Draw(t, "crowded resolution")
			cfg.Backfill.WindowSec = cfg.Backfill.ResolutionSec * rapid.Int64Range(1, 24).Draw(t, "crowded slots")
			cfg.Backfill.MaxJobTest = 0
			cfg.Nodes = min(cfg.Nodes, rapid.IntRange(1, 8).Draw(t, "crowded nodes"))
			cfg.Limits.MaxNodesPerUser = min(cfg.Limits.MaxNodesPerUser, cfg.Nodes)
			cfg.Capacity = nil
			for i := range jobs {
				jobs[i].Nodes = min(jobs[i].Nodes, int32(cfg.Nodes))
			}
		}
		grid, err := sim.New(cfg, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		steps, _ := sim.New(cfg, jobs, nil)
		sim.ForceStepPlan(steps)
		ctx := context.Background()
		at := grid.Now()
		probe := simtest.Job(int32(rapid.IntRange(1, cfg.Nodes).Draw(t, "probe nodes")), 0, rapid.Int64Range(60, 8*3600).Draw(t, "probe limit"), 1)
		probe.User = -1
		for range rapid.IntRange(1, 20).Draw(t, "checks") {
			at += rapid.Int64Range(0, 4*3600).Draw(t, "step")
			for _, s := range []*sim.Sim{grid, steps} {
				if err := s.RunUntil(ctx, at); err != nil {
					t.Fatal(err)
				}
			}
			e1, ok1 := grid.EstimatedStart(probe)
			e2, ok2 := steps.EstimatedStart(probe)
			if e1 != e2 || ok1 != ok2 {
				t.Fatalf("at %d: EstimatedStart %d %v on the grid, %d %v on steps", at, e1, ok1, e2, ok2)
			}
		}
		for _, s := range []*sim.Sim{grid, steps} {
			if err := s.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for id := range jobs {
			a1, _ := grid.Started(sim.JobID(id))
			a2, _ := steps.Started(sim.JobID(id))
			if a1 != a2 {
				t.Fatalf("job %d starts at %d on the grid, %d on steps", id, a1, a2)
			}
		}
	})
}

// TestWork_BoundedWhenOverloaded: on an overloaded queue (32 nodes, a job
// every 30 s for a day, each running 2 h: six times the capacity), every
// backfill pass plans at most MaxJobTest jobs (and the queue is deep
// enough for some pass to reach it), passes run only on the backfill
// interval, and a main pass looks at one job beyond those it starts.
func TestWork_BoundedWhenOverloaded(t *testing.T) {
	cfg := simtest.Cluster(32)
	cfg.Priority.AgeWeight, cfg.Priority.SizeWeight, cfg.Priority.FairShareWeight = 1000, 100, 500
	cfg.Priority.MaxAgeSec, cfg.Priority.DecayHalfLifeSec = 3600, 3600
	cfg.Backfill.MaxJobTest = 50
	var jobs []sim.Job
	for i := range int64(2880) {
		j := simtest.Job(int32(1+i%7), i*30, 4*3600, 2*3600)
		j.User = int32(i % 13)
		jobs = append(jobs, j)
	}
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := s.Work()
	var last int64
	for id := range jobs {
		e, _ := s.Ended(sim.JobID(id))
		last = max(last, e)
	}
	if w.BackfillMaxTested != cfg.Backfill.MaxJobTest {
		t.Errorf("the most jobs planned in one backfill pass: %d, want the limit %d", w.BackfillMaxTested, cfg.Backfill.MaxJobTest)
	}
	if max := (last-jobs[0].Submit)/cfg.Backfill.IntervalSec + 1; w.BackfillPasses > max {
		t.Errorf("%d backfill passes, more than one per interval (%d)", w.BackfillPasses, max)
	}
	if w.BackfillTested > w.BackfillPasses*int64(cfg.Backfill.MaxJobTest) {
		t.Errorf("%d jobs planned in %d backfill passes", w.BackfillTested, w.BackfillPasses)
	}
	if w.MainTested > w.MainPasses+w.MainStarted {
		t.Errorf("main passes looked at %d jobs: more than %d passes + %d started", w.MainTested, w.MainPasses, w.MainStarted)
	}
	if w.MainPasses == 0 || w.MainStarted == 0 {
		t.Errorf("no main pass work: %+v", w)
	}
	t.Logf("%+v", w)
}

// TestBackfill_MaxJobUser: with bf_max_job_user, a backfill pass plans at
// most that many jobs of each user (3 users here); without it, every
// pending job (299: the first one runs, leaving a node free that none of
// the others fits, so no pass stops early).
func TestBackfill_MaxJobUser(t *testing.T) {
	cfg := simtest.Cluster(5)
	cfg.Backfill.ResolutionSec = 60
	var jobs []sim.Job
	for i := range int64(300) {
		j := simtest.Job(4, i, 3600, 3600)
		j.User = int32(i % 3)
		jobs = append(jobs, j)
	}
	for _, limit := range []int{0, 1, 7} {
		c := cfg
		c.Backfill.MaxJobUser = limit
		s, err := sim.New(c, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		w := s.Work()
		want := 299
		if limit > 0 {
			want = 3 * limit
		}
		if w.BackfillMaxTested != want {
			t.Errorf("bf_max_job_user %d: at most %d jobs planned in a pass, want %d", limit, w.BackfillMaxTested, want)
		}
	}
}

// TestProperty_ScheduleEqualsReference: on random workloads (every
// priority factor, limits, capacity steps, cancellations), the schedule
// is the one of the plain passes (a full sort of the queue at every pass,
// backfill passes that never stop early): the index, its bounds and the
// early stop change the cost, not the result.
func TestProperty_ScheduleEqualsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		got, _ := schedule(t, sim.New, cfg, jobs)
		want, _ := schedule(t, sim.New, cfg, jobs, sim.ForceReference)
		if !slices.Equal(got, want) {
			t.Fatalf("schedule (start, end per job) %v, reference %v", got, want)
		}
	})
}

// TestIndex_CappedMergesEqualReference: in an overloaded queue where most
// jobs reach the age cap (10 minutes here), each user's recently capped
// jobs are merged into its capped list many times (more than 64 crossings
// per user); the schedule stays the one of the plain passes, and the
// priority of equal-sized capped jobs ties exactly, broken by submission.
func TestIndex_CappedMergesEqualReference(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 16
	cfg.Priority.MaxAgeSec = 600
	var jobs []sim.Job
	for i := range int64(1200) {
		j := simtest.Job(int32(1+i%3), 20*i, 1800+600*(i%5), 900+300*(i%7))
		j.User = int32(i % 4)
		jobs = append(jobs, j)
	}
	got, w := schedule(t, sim.New, cfg, jobs)
	want, _ := schedule(t, sim.New, cfg, jobs, sim.ForceReference)
	if !slices.Equal(got, want) {
		t.Fatalf("schedule differs from the reference passes")
	}
	if w.MaxPending < 4*100 {
		t.Fatalf("at most %d jobs pending: the queue is too short to cap %d jobs per user", w.MaxPending, 100)
	}
}

// schedule runs jobs to the end in a simulation made by newSim, after
// calling each of prep on it (sim.ForceReference: the plain reference
// passes), and returns each job's start and end, in job order, and the
// passes' work.
func schedule(tb interface {
	Helper()
	Fatal(...any)
}, newSim func(sim.Config, []sim.Job, sim.Recorder) (*sim.Sim, error), cfg sim.Config, jobs []sim.Job, prep ...func(*sim.Sim)) ([]int64, sim.Work) {
	tb.Helper()
	s, err := newSim(cfg, jobs, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range prep {
		f(s)
	}
	if err := s.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	out := make([]int64, 0, 2*len(jobs))
	for id := range jobs {
		st, _ := s.Started(sim.JobID(id))
		en, _ := s.Ended(sim.JobID(id))
		out = append(out, st, en)
	}
	return out, s.Work()
}

// TestWork_MainPassEvaluatesFewUsers: on an overloaded queue of 200 users
// with fair-share (a job every 5 minutes for 20 days on 64 nodes, each
// running 4 h: more than twice the capacity, so most jobs reach the age
// cap), a main pass evaluates a few users at their exact priority, not
// the 200 with pending jobs: the bounds, kept as the usage total grows,
// reach only the users near the top.
func TestWork_MainPassEvaluatesFewUsers(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 64
	cfg.Backfill.Flavour = sim.BackfillNone
	var jobs []sim.Job
	for i := range int64(20 * 86400 / 300) {
		j := simtest.Job(int32(1+i%5), i*300, 8*3600, 4*3600)
		j.User = int32((i * 7) % 200)
		jobs = append(jobs, j)
	}
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := s.Work()
	if w.MaxPending < 1000 {
		t.Fatalf("at most %d jobs pending: not overloaded", w.MaxPending)
	}
	if per := float64(w.UsersEvaluated) / float64(w.MainPasses); per > 4 {
		t.Errorf("%.1f users evaluated per main pass (%d in %d passes), want at most 4 of 200", per, w.UsersEvaluated, w.MainPasses)
	}
	t.Logf("%+v", w)
}
