package sim_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// mustSim is sim.New that fails tb on error.
func mustSim(tb testing.TB, cfg sim.Config, jobs []sim.Job) *sim.Sim {
	tb.Helper()
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		tb.Fatalf("new sim: %v", err)
	}
	return s
}

// startsOf returns every job's start, -1 for jobs that never started.
func startsOf(s *sim.Sim) []int64 {
	out := make([]int64, s.NumJobs())
	for id := range out {
		out[id] = -1
		if t, ok := s.Started(sim.JobID(id)); ok {
			out[id] = t
		}
	}
	return out
}

// cloneJobs is a queue on 2 nodes: a runs [0,100), b [100,200), c waits
// for b.
func cloneJobs() []sim.Job {
	c := simtest.Job(2, 20, 100, 50)
	c.After = 1
	return []sim.Job{simtest.Job(2, 0, 100, 100), simtest.Job(1, 10, 100, 100), c}
}

func TestSim_Clone(t *testing.T) {
	ctx := context.Background()
	cfg := simtest.Cluster(2)

	ref := mustSim(t, cfg, cloneJobs())
	if err := ref.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 100, 200}
	if diff := cmp.Diff(want, startsOf(ref)); diff != "" {
		t.Fatalf("reference schedule (-want +got):\n%s", diff)
	}

	t.Run("SubmitLeavesOriginal", func(t *testing.T) {
		s := mustSim(t, cfg, cloneJobs())
		if err := s.RunUntil(ctx, 50); err != nil {
			t.Fatal(err)
		}
		c := s.Clone(nil)
		// A 2-node job submitted at 60: the queue is in submission order,
		// so it runs after c.
		id, err := c.Submit(simtest.Job(2, 60, 30, 30))
		if err != nil {
			t.Fatal(err)
		}
		if id != 3 || c.NumJobs() != 4 || s.NumJobs() != 3 {
			t.Fatalf("id %d, clone %d jobs, original %d; want 3, 4, 3", id, c.NumJobs(), s.NumJobs())
		}
		if err := c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, startsOf(s)); diff != "" {
			t.Errorf("original after the clone's Submit (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int64{0, 100, 200, 250}, startsOf(c)); diff != "" {
			t.Errorf("clone (-want +got):\n%s", diff)
		}
	})

	t.Run("TwoClonesApart", func(t *testing.T) {
		s := mustSim(t, cfg, cloneJobs())
		if err := s.RunUntil(ctx, 50); err != nil {
			t.Fatal(err)
		}
		c1, c2 := s.Clone(nil), s.Clone(nil)
		j1 := simtest.Job(1, 0, 10, 10) // submitted "now" (50)
		j2 := simtest.Job(2, 0, 10, 10)
		if _, err := c1.Submit(j1); err != nil {
			t.Fatal(err)
		}
		if _, err := c2.Submit(j2); err != nil {
			t.Fatal(err)
		}
		for _, x := range []*sim.Sim{c1, c2, s} {
			if err := x.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := c1.Job(3); got.Nodes != 1 || got.Submit != 50 {
			t.Errorf("clone 1 job 3 = %+v, want 1 node submitted at 50 (Now)", got)
		}
		if got := c2.Job(3); got.Nodes != 2 {
			t.Errorf("clone 2 job 3 = %+v, want 2 nodes", got)
		}
		// At 100 a ends and c is still held (it waits for b), so the queue
		// is b then the new job: in c1 both 1-node jobs start at 100; in
		// c2 the 2-node job waits for b's node, then c (submitted earlier)
		// goes first at 200 and the new job follows at 250.
		if diff := cmp.Diff([]int64{0, 100, 200, 100}, startsOf(c1)); diff != "" {
			t.Errorf("clone 1 (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int64{0, 100, 200, 250}, startsOf(c2)); diff != "" {
			t.Errorf("clone 2 (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, startsOf(s)); diff != "" {
			t.Errorf("original (-want +got):\n%s", diff)
		}
	})

	t.Run("SubmitAfterDependency", func(t *testing.T) {
		s := mustSim(t, cfg, cloneJobs())
		if err := s.RunUntil(ctx, 50); err != nil {
			t.Fatal(err)
		}
		c := s.Clone(nil)
		j := simtest.Job(1, 60, 10, 10)
		j.After = 2 // c, which ends at 250
		if _, err := c.Submit(j); err != nil {
			t.Fatal(err)
		}
		if err := c.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int64{0, 100, 200, 250}, startsOf(c)); diff != "" {
			t.Errorf("clone (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, startsOf(s)); diff != "" {
			t.Errorf("original (-want +got):\n%s", diff)
		}
	})
}

func TestSim_Submit_Errors(t *testing.T) {
	tests := []struct {
		Name string
		Job  sim.Job
	}{
		{"TooManyNodes", simtest.Job(3, 0, 10, 10)},
		{"NoNodes", simtest.Job(0, 0, 10, 10)},
		{"NoLimit", simtest.Job(1, 0, 0, 0)},
		{"NegativeRun", simtest.Job(1, 0, 10, -1)},
		{"AfterSelf", func() sim.Job { j := simtest.Job(1, 0, 10, 10); j.After = 3; return j }()},
		{"AfterUnknown", func() sim.Job { j := simtest.Job(1, 0, 10, 10); j.After = 9; return j }()},
		{"AfterNegative", func() sim.Job { j := simtest.Job(1, 0, 10, 10); j.After = -2; return j }()},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s := mustSim(t, simtest.Cluster(2), cloneJobs())
			id, err := s.Submit(tt.Job)
			if !errors.Is(err, sim.ErrInfeasibleJob) || id != sim.NoJob {
				t.Errorf("Submit = %d, %v; want NoJob, ErrInfeasibleJob", id, err)
			}
			if s.NumJobs() != 3 {
				t.Errorf("NumJobs = %d after a refused Submit, want 3", s.NumJobs())
			}
			if err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int64{0, 100, 200}, startsOf(s)); diff != "" {
				t.Errorf("schedule after a refused Submit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew_Errors(t *testing.T) {
	after := func(j sim.Job, a sim.JobID) sim.Job { j.After = a; return j }
	tests := []struct {
		Name string
		Cfg  sim.Config
		Jobs []sim.Job
		Err  error
	}{
		{"BadConfig", sim.Config{}, nil, sim.ErrConfig},
		{"TooManyNodes", simtest.Cluster(2), []sim.Job{simtest.Job(3, 0, 10, 10)}, sim.ErrInfeasibleJob},
		{"NoNodes", simtest.Cluster(2), []sim.Job{simtest.Job(0, 0, 10, 10)}, sim.ErrInfeasibleJob},
		{"NoLimit", simtest.Cluster(2), []sim.Job{simtest.Job(1, 0, 0, 0)}, sim.ErrInfeasibleJob},
		{"NegativeRun", simtest.Cluster(2), []sim.Job{simtest.Job(1, 0, 10, -5)}, sim.ErrInfeasibleJob},
		{"AfterSelf", simtest.Cluster(2), []sim.Job{after(simtest.Job(1, 0, 10, 10), 0)}, sim.ErrInfeasibleJob},
		{"AfterOutOfRange", simtest.Cluster(2), []sim.Job{after(simtest.Job(1, 0, 10, 10), 1)}, sim.ErrInfeasibleJob},
		{"AfterNegative", simtest.Cluster(2), []sim.Job{after(simtest.Job(1, 0, 10, 10), -3)}, sim.ErrInfeasibleJob},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s, err := sim.New(tt.Cfg, tt.Jobs, nil)
			if !errors.Is(err, tt.Err) || s != nil {
				t.Errorf("New = %v, %v\nwant nil, %v", s, err, tt.Err)
			}
		})
	}
	t.Run("Empty", func(t *testing.T) {
		s := mustSim(t, simtest.Cluster(1), nil)
		if err := s.Run(context.Background()); err != nil || s.Now() != 0 || s.NumJobs() != 0 {
			t.Errorf("empty sim: Run %v, Now %d, NumJobs %d", err, s.Now(), s.NumJobs())
		}
	})
}

func TestConfig_Validate(t *testing.T) {
	ok := simtest.Cluster(4)
	tests := []struct {
		Name   string
		Modify func(c *sim.Config)
		Err    error
	}{
		{"OK", func(*sim.Config) {}, nil},
		{"DefaultConfig", func(c *sim.Config) { *c = sim.DefaultConfig() }, nil},
		{"MirageCompat", func(c *sim.Config) { *c = sim.MirageCompat() }, nil},
		{"NoneNeedsNoBackfillParams", func(c *sim.Config) { c.Backfill = sim.Backfill{Flavour: sim.BackfillNone} }, nil},
		{"ZeroMaxAgeWithoutAgeWeight", func(c *sim.Config) { c.Priority.MaxAgeSec = 0 }, nil},
		{"ErrNodes", func(c *sim.Config) { c.Nodes = 0 }, sim.ErrConfig},
		{"ErrMaxAge", func(c *sim.Config) { c.Priority.AgeWeight, c.Priority.MaxAgeSec = 1, 0 }, sim.ErrConfig},
		{"ErrHalfLife", func(c *sim.Config) { c.Priority.FairShareWeight, c.Priority.DecayHalfLifeSec = 1, 0 }, sim.ErrConfig},
		{"ErrInterval", func(c *sim.Config) { c.Backfill.IntervalSec = 0 }, sim.ErrConfig},
		{"ErrWindow", func(c *sim.Config) { c.Backfill.WindowSec = -1 }, sim.ErrConfig},
		{"ErrResolutionEASY", func(c *sim.Config) { c.Backfill.Flavour, c.Backfill.ResolutionSec = sim.BackfillEASY, 0 }, sim.ErrConfig},
		{"ErrLimits", func(c *sim.Config) { c.Limits.MaxNodesPerUser = -1 }, sim.ErrConfig},
		{"ErrCapacityUnsorted", func(c *sim.Config) { c.Capacity = []sim.CapacityStep{{At: 10, Nodes: 1}, {At: 5, Nodes: 2}} }, sim.ErrConfig},
		{"ErrCapacityTooMany", func(c *sim.Config) { c.Capacity = []sim.CapacityStep{{At: 10, Nodes: 5}} }, sim.ErrConfig},
		{"ErrCapacityNegative", func(c *sim.Config) { c.Capacity = []sim.CapacityStep{{At: 10, Nodes: -1}} }, sim.ErrConfig},
		{"CapacityZeroAndEqualTimes", func(c *sim.Config) { c.Capacity = []sim.CapacityStep{{At: 10, Nodes: 0}, {At: 10, Nodes: 4}} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			c := ok
			c.Capacity = nil
			tt.Modify(&c)
			err := c.Validate()
			if tt.Err == nil && err != nil || tt.Err != nil && !errors.Is(err, tt.Err) {
				t.Errorf("Validate = %v\nwant %v", err, tt.Err)
			}
		})
	}
}

func TestParseFlavourAndCancelPolicy(t *testing.T) {
	for _, f := range []sim.Flavour{sim.BackfillConservative, sim.BackfillEASY, sim.BackfillNone} {
		if got, err := sim.ParseFlavour(f.String()); err != nil || got != f {
			t.Errorf("ParseFlavour(%q) = %v, %v", f, got, err)
		}
	}
	for _, c := range []sim.CancelPolicy{sim.CancelLeave, sim.CancelRunZero} {
		if got, err := sim.ParseCancelPolicy(c.String()); err != nil || got != c {
			t.Errorf("ParseCancelPolicy(%q) = %v, %v", c, got, err)
		}
	}
	if _, err := sim.ParseFlavour("fast"); err == nil {
		t.Error("ParseFlavour(fast): no error")
	}
	if _, err := sim.ParseCancelPolicy("drop"); err == nil {
		t.Error("ParseCancelPolicy(drop): no error")
	}
	if _, err := sim.LoadProfile("slurm"); err == nil {
		t.Error("LoadProfile(slurm): no error")
	}
}

func TestSim_RunUntilStarted(t *testing.T) {
	ctx := context.Background()
	cfg := simtest.Cluster(2)
	cfg.Backfill.Flavour = sim.BackfillNone
	cfg.Capacity = []sim.CapacityStep{{At: 500, Nodes: 1}}
	ghost := simtest.Job(1, 30, 10, 10)
	ghost.Cancel = 300
	jobs := []sim.Job{
		simtest.Job(2, 0, 100, 100), // 0: [0,100)
		simtest.Job(2, 10, 100, 50), // 1: [100,150)
		ghost,                       // 2: leaves at 300
		simtest.Job(2, 600, 10, 10), // 3: 2 nodes after capacity 1: never
	}
	s := mustSim(t, cfg, jobs)

	t.Run("OK", func(t *testing.T) {
		got, err := s.RunUntilStarted(ctx, 1)
		if err != nil || got != 100 {
			t.Fatalf("RunUntilStarted(1) = %d, %v; want 100, nil", got, err)
		}
		if s.Now() != 100 {
			t.Errorf("Now = %d, want 100 (it stops at the start)", s.Now())
		}
		// Already started: returned at once.
		if got, err := s.RunUntilStarted(ctx, 0); err != nil || got != 0 {
			t.Errorf("RunUntilStarted(0) = %d, %v; want 0, nil", got, err)
		}
	})
	t.Run("ErrNeverStartsLeft", func(t *testing.T) {
		_, err := s.RunUntilStarted(ctx, 2)
		if !errors.Is(err, sim.ErrNeverStarts) {
			t.Fatalf("err = %v, want ErrNeverStarts", err)
		}
		if at, ok := s.Ended(2); !ok || at != 300 {
			t.Errorf("Ended(2) = %d, %v; want 300, true", at, ok)
		}
	})
	t.Run("ErrNeverStartsNoEvents", func(t *testing.T) {
		_, err := s.RunUntilStarted(ctx, 3)
		if !errors.Is(err, sim.ErrNeverStarts) {
			t.Fatalf("err = %v, want ErrNeverStarts", err)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		// The context is checked every 1024 steps: a long run notices.
		many := make([]sim.Job, 3000)
		for i := range many {
			many[i] = simtest.Job(1, int64(i), 1, 1)
		}
		c, cancel := context.WithCancel(ctx)
		cancel()
		s := mustSim(t, simtest.Cluster(1), many)
		if _, err := s.RunUntilStarted(c, 2999); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestSim_Snapshot(t *testing.T) {
	cfg := simtest.Cluster(4)
	cfg.Priority.SizeWeight = 100
	cfg.Backfill.Flavour = sim.BackfillNone
	cfg.Capacity = []sim.CapacityStep{{At: 25, Nodes: 3}}
	ghost := simtest.Job(2, 15, 60, 0)
	ghost.Cancel = 500
	held := simtest.Job(1, 12, 60, 60)
	held.After = 0
	jobs := []sim.Job{
		{User: 0, Nodes: 2, Submit: 0, LimitSec: 100, RunSec: 100, After: sim.NoJob}, // 0: runs from 0
		{User: 1, Nodes: 1, Submit: 5, LimitSec: 50, RunSec: 50, After: sim.NoJob},   // 1: runs from 5
		{User: 2, Nodes: 4, Submit: 10, LimitSec: 30, RunSec: 30, After: sim.NoJob},  // 2: pending, priority 100
		{User: 1, Nodes: 1, Submit: 20, LimitSec: 40, RunSec: 40, After: sim.NoJob},  // 3: pending behind 2, priority 25
		ghost, // 4: pending ghost, priority 50
		held,  // 5: held (after 0): not shown
	}
	s := mustSim(t, cfg, jobs)
	if err := s.RunUntil(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	want := sim.Snapshot{
		Now: 30, Nodes: 4, Capacity: 3, FreeNodes: 0,
		Pending: []sim.PendingJob{
			{ID: 2, User: 2, Nodes: 4, LimitSec: 30, Submit: 10, Eligible: 10, Priority: 100},
			{ID: 4, User: 0, Nodes: 2, LimitSec: 60, Submit: 15, Eligible: 15, Priority: 50},
			{ID: 3, User: 1, Nodes: 1, LimitSec: 40, Submit: 20, Eligible: 20, Priority: 25},
		},
		Running: []sim.RunningJob{
			{ID: 0, User: 0, Nodes: 2, LimitSec: 100, Submit: 0, Start: 0},
			{ID: 1, User: 1, Nodes: 1, LimitSec: 50, Submit: 5, Start: 5},
		},
	}
	if diff := cmp.Diff(want, s.Snapshot()); diff != "" {
		t.Errorf("Snapshot (-want +got):\n%s", diff)
	}
	// After 1 ends at 55 a node is free, but 2 (4 nodes) still blocks 3;
	// capacity 3 < 4 means 2 can never start while the step holds, so the
	// free count is 3 - 2 = 1.
	if err := s.RunUntil(context.Background(), 60); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	if snap.FreeNodes != 1 || len(snap.Running) != 1 || len(snap.Pending) != 3 {
		t.Errorf("Snapshot at 60: free %d, %d running, %d pending; want 1, 1, 3", snap.FreeNodes, len(snap.Running), len(snap.Pending))
	}
}

func TestSim_EstimatedStart(t *testing.T) {
	// 4 nodes. A (3 nodes, limit 600, run 300) runs from 0; B (2 nodes,
	// limit 300) waits. At 100 the planner sees: 1 node free, A's 3 nodes
	// back at 100 + ceil(500/60)*60 = 640.
	setup := func(t *testing.T, size float64, window int64) *sim.Sim {
		cfg := simtest.Cluster(4)
		cfg.Priority.SizeWeight = size
		cfg.Backfill = sim.Backfill{Flavour: sim.BackfillConservative, IntervalSec: 600, WindowSec: window, ResolutionSec: 60}
		s := mustSim(t, cfg, []sim.Job{simtest.Job(3, 0, 600, 300), simtest.Job(2, 0, 300, 300)})
		if err := s.RunUntil(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		Name   string
		Size   float64
		Window int64
		Job    sim.Job
		At     int64
		OK     bool
	}{
		// Equal priority: B is planned first, [640,940) on 2 nodes.
		{"FitsNow", 0, 2 * 86400, simtest.Job(1, 0, 120, 60), 100, true},          // [100,220) on the free node
		{"FitsBesideB", 0, 2 * 86400, simtest.Job(2, 0, 300, 60), 640, true},      // 2 of the 4 nodes at 640
		{"AfterB", 0, 2 * 86400, simtest.Job(3, 0, 300, 60), 940, true},           // 3 nodes: after B
		{"LongOneNode", 0, 2 * 86400, simtest.Job(1, 0, 600, 60), 100, true},      // B leaves 2 nodes at 640
		{"WholePartition", 0, 2 * 86400, simtest.Job(4, 0, 60, 60), 940, true},    // after B
		{"LimitRoundedUp", 0, 2 * 86400, simtest.Job(1, 0, 1, 1), 100, true},      // 1 s plans as 60 s
		{"HigherPriority", 100, 2 * 86400, simtest.Job(3, 0, 300, 60), 640, true}, // 75 > B's 50: before B
		{"OutsideWindow", 0, 600, simtest.Job(3, 0, 300, 60), 0, false},           // 940 >= 100 + 600
		{"Infeasible", 0, 2 * 86400, simtest.Job(5, 0, 300, 60), 0, false},        // more nodes than the partition
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s := setup(t, tt.Size, tt.Window)
			before := s.Snapshot()
			at, ok := s.EstimatedStart(tt.Job)
			if at != tt.At || ok != tt.OK {
				t.Errorf("EstimatedStart = %d, %v; want %d, %v", at, ok, tt.At, tt.OK)
			}
			if diff := cmp.Diff(before, s.Snapshot()); diff != "" {
				t.Errorf("EstimatedStart changed the simulation (-before +after):\n%s", diff)
			}
		})
	}
}

// Example simulates four jobs on four nodes: b waits for a's nodes, c
// waits for b (a dependency), and d starts beside b: held, c blocks nothing.
func Example() {
	cfg := sim.DefaultConfig()
	cfg.Nodes = 4
	jobs := []sim.Job{
		{Name: "a", Nodes: 4, Submit: 0, LimitSec: 3600, RunSec: 1800, After: sim.NoJob},
		{Name: "b", Nodes: 2, Submit: 60, LimitSec: 600, RunSec: 600, After: sim.NoJob},
		{Name: "c", Nodes: 2, Submit: 120, LimitSec: 600, RunSec: 300, After: 1},
		{Name: "d", Nodes: 2, Submit: 180, LimitSec: 600, RunSec: 100, After: sim.NoJob},
	}
	s, err := sim.New(cfg, jobs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Run(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	for id := range sim.JobID(s.NumJobs()) {
		start, _ := s.Started(id)
		end, _ := s.Ended(id)
		fmt.Printf("%s: start %4d end %4d\n", s.Job(id).Name, start, end)
	}
	// Output:
	// a: start    0 end 1800
	// b: start 1800 end 2400
	// c: start 2400 end 2700
	// d: start 1800 end 1900
}

// TestMinuteRounding_RunWithinLimit: completions use min(RunSec,
// LimitSec), and backfill plans on running jobs ending by their limit, so
// minute rounding rounds the limit up too (limit 90 s, run 90 s: both
// 120 s).
func TestMinuteRounding_RunWithinLimit(t *testing.T) {
	cfg := simtest.Cluster(1)
	cfg.MinuteRounding = true
	s := mustSim(t, cfg, []sim.Job{simtest.Job(1, 0, 90, 90)})
	if j := s.Job(0); j.RunSec > j.LimitSec || j.LimitSec != 120 || j.RunSec != 120 {
		t.Errorf("under MinuteRounding run %d s, limit %d s; want 120, 120", j.RunSec, j.LimitSec)
	}
}

// TestSim_Run_StopsWhenNothingCanStart: Run "processes every event until
// nothing is left to do". A pending job that can never start (capacity
// down for good, or more nodes than MaxNodesPerUser) must not keep a
// backfill pass due every interval forever.
func TestSim_Run_StopsWhenNothingCanStart(t *testing.T) {
	down := simtest.Cluster(2)
	down.Capacity = []sim.CapacityStep{{At: 50, Nodes: 1}}
	userCap := simtest.Cluster(2)
	userCap.Limits.MaxNodesPerUser = 1
	tests := []struct {
		Name string
		Cfg  sim.Config
		Job  sim.Job
		// Skipped: the stuck job does not block the main pass.
		Skipped bool
	}{
		{"CapacityDown", down, simtest.Job(2, 100, 10, 10), false},
		{"OverUserNodeLimit", userCap, simtest.Job(2, 0, 10, 10), true},
	}
	for _, tt := range tests {
		for _, f := range []sim.Flavour{sim.BackfillNone, sim.BackfillConservative, sim.BackfillEASY} {
			t.Run(tt.Name+"/"+f.String(), func(t *testing.T) {
				cfg := tt.Cfg
				cfg.Backfill.Flavour = f
				// The second job arrives after a backfill pass at 600 found
				// nothing to start.
				s := mustSim(t, cfg, []sim.Job{tt.Job, simtest.Job(1, 700, 10, 10)})
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := s.Run(ctx); err != nil {
					t.Fatalf("Run = %v (clock at %d after %d events)", err, s.Now(), s.Events())
				}
				if _, ok := s.Started(0); ok {
					t.Error("the stuck job started")
				}
				// The 1-node job behind it starts: by backfill when the
				// stuck job blocks the main pass, else by the main pass.
				want := f != sim.BackfillNone || tt.Skipped
				if _, ok := s.Started(1); ok != want {
					t.Errorf("job behind the stuck one started = %v, want %v", ok, want)
				}
				if _, err := s.RunUntilStarted(ctx, 0); !errors.Is(err, sim.ErrNeverStarts) {
					t.Errorf("RunUntilStarted = %v, want ErrNeverStarts", err)
				}
			})
		}
	}
}

func TestNew_RejectsDependencyCycle(t *testing.T) {
	jobs := []sim.Job{
		{Name: "a", Nodes: 1, LimitSec: 10, RunSec: 1, After: 2},
		{Name: "b", Nodes: 1, LimitSec: 10, RunSec: 1, After: sim.NoJob},
		{Name: "c", Nodes: 1, LimitSec: 10, RunSec: 1, After: 0},
	}
	if _, err := sim.New(simtest.Cluster(1), jobs, nil); !errors.Is(err, sim.ErrInfeasibleJob) {
		t.Fatalf("err = %v, want ErrInfeasibleJob", err)
	}
	jobs[0].After = 1 // a chain, no cycle
	if _, err := sim.New(simtest.Cluster(1), jobs, nil); err != nil {
		t.Fatal(err)
	}
}
