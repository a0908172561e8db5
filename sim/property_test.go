package sim_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/simtest"
)

// genOptions says which features a generated workload may use.
type genOptions struct {
	flavours []sim.Flavour
	deps     bool // After and Eligible
	cancels  bool // Cancel, under either policy
	limits   bool // per-user limits
	capacity bool // capacity steps (the last one restores every node)
	minute   bool // MinuteRounding, sometimes
	weights  bool // random priority weights; else all zero (submission order)
	sameSize bool // every job has the same node count
	zeroRuns bool // run times of 0 (and CancelRunZero)
	timeMin  bool // some jobs have a time-min (Job.TimeMinSec)
	// maxJobs bounds the job count (0: 300).
	maxJobs int
	// fitGrid makes the backfill interval a multiple of the resolution
	// and the window huge (for the reservation oracle).
	fitGrid bool
}

var allFeatures = genOptions{
	flavours: []sim.Flavour{sim.BackfillConservative, sim.BackfillEASY, sim.BackfillNone},
	deps:     true, cancels: true, limits: true, capacity: true, minute: true, weights: true, zeroRuns: true,
	timeMin: true,
}

// genWorkload draws a configuration and up to 300 jobs (o.maxJobs) on 1
// to 64 nodes.
// Every job can eventually start: capacity ends at Nodes, and a job needs
// at most MaxNodesPerUser nodes; dependencies point to earlier jobs.
func genWorkload(t *rapid.T, o genOptions) (sim.Config, []sim.Job) {
	cfg := simtest.Cluster(rapid.IntRange(1, 64).Draw(t, "nodes"))
	cfg.Backfill.Flavour = rapid.SampledFrom(o.flavours).Draw(t, "flavour")
	if o.fitGrid {
		cfg.Backfill.ResolutionSec = rapid.SampledFrom([]int64{1, 10, 60, 300}).Draw(t, "resolution")
		k := rapid.Int64Range(max(1, 60/cfg.Backfill.ResolutionSec), max(2, 1200/cfg.Backfill.ResolutionSec)).Draw(t, "interval/resolution")
		cfg.Backfill.IntervalSec = k * cfg.Backfill.ResolutionSec
		cfg.Backfill.WindowSec = 1 << 40
		cfg.Backfill.MaxJobTest = 0
	} else {
		cfg.Backfill.ResolutionSec = rapid.SampledFrom([]int64{1, 7, 60, 600}).Draw(t, "resolution")
		cfg.Backfill.IntervalSec = rapid.SampledFrom([]int64{30, 60, 600, 3600}).Draw(t, "interval")
		cfg.Backfill.WindowSec = rapid.SampledFrom([]int64{600, 7200, 2 * 86400}).Draw(t, "window")
		cfg.Backfill.MaxJobTest = rapid.SampledFrom([]int{0, 1, 3, 3000}).Draw(t, "maxtest")
	}
	if o.weights {
		p := &cfg.Priority
		p.AgeWeight = rapid.SampledFrom([]float64{0, 1, 7000}).Draw(t, "age")
		p.SizeWeight = rapid.SampledFrom([]float64{0, 100, 10000}).Draw(t, "size")
		p.FairShareWeight = rapid.SampledFrom([]float64{0, 4000}).Draw(t, "fairshare")
		p.MaxAgeSec = rapid.Int64Range(60, 86400).Draw(t, "maxage")
		p.DecayHalfLifeSec = rapid.Int64Range(60, 86400).Draw(t, "halflife")
		p.AgeUncapped = rapid.Bool().Draw(t, "uncapped")
		cfg.AgeFromSubmit = rapid.Bool().Draw(t, "agefromsubmit")
	}
	if o.cancels && o.zeroRuns && rapid.Bool().Draw(t, "runzero") {
		cfg.Cancelled = sim.CancelRunZero
	}
	if o.minute {
		cfg.MinuteRounding = rapid.Bool().Draw(t, "minute")
	}
	maxNodes := cfg.Nodes
	if o.limits {
		cfg.Limits.MaxJobsPerUser = rapid.IntRange(0, 3).Draw(t, "limit_jobs")
		if rapid.Bool().Draw(t, "limit_nodes?") {
			maxNodes = rapid.IntRange(1, cfg.Nodes).Draw(t, "limit_nodes")
			cfg.Limits.MaxNodesPerUser = maxNodes
		}
	}
	n := rapid.IntRange(0, cmp.Or(o.maxJobs, 300)).Draw(t, "jobs")
	size := int32(rapid.IntRange(1, maxNodes).Draw(t, "same size"))
	jobs := make([]sim.Job, n)
	submit := rapid.Int64Range(0, 1000).Draw(t, "first submit")
	for i := range jobs {
		if rapid.IntRange(0, 3).Draw(t, "same second?") > 0 {
			submit += rapid.Int64Range(0, 1200).Draw(t, "gap")
		}
		limit := rapid.Int64Range(1, 4*3600).Draw(t, "limit")
		if cfg.MinuteRounding {
			// Whole minutes, as Slurm's limits are: rounding a run time up
			// to the minute can exceed a limit that is not (see
			// TestMinuteRounding_RunWithinLimit).
			limit = (limit + 59) / 60 * 60
		}
		run := rapid.Int64Range(0, limit*5/4).Draw(t, "run")
		if !o.zeroRuns {
			run = max(run, 1)
		}
		j := simtest.Job(size, submit, limit, run)
		if !o.sameSize {
			j.Nodes = int32(rapid.IntRange(1, maxNodes).Draw(t, "job nodes"))
		}
		j.User = int32(rapid.IntRange(-1, 5).Draw(t, "user"))
		if o.timeMin && rapid.IntRange(0, 2).Draw(t, "time-min?") == 0 {
			j.TimeMinSec = rapid.Int64Range(1, limit).Draw(t, "time-min")
		}
		if o.cancels && rapid.IntRange(0, 9).Draw(t, "cancel?") == 0 {
			j.Cancel = submit + rapid.Int64Range(-100, 7200).Draw(t, "cancel after")
			j.Cancel = max(j.Cancel, 1)
		}
		if o.deps && i > 0 && rapid.IntRange(0, 6).Draw(t, "after?") == 0 {
			j.After = sim.JobID(rapid.IntRange(0, i-1).Draw(t, "after"))
		}
		if o.deps && rapid.IntRange(0, 6).Draw(t, "eligible?") == 0 {
			j.Eligible = submit + rapid.Int64Range(-600, 7200).Draw(t, "eligible after")
		}
		jobs[i] = j
	}
	if o.capacity && n > 0 {
		steps := rapid.IntRange(0, 4).Draw(t, "capacity steps")
		at := jobs[0].Submit
		for range steps {
			at += rapid.Int64Range(0, 7200).Draw(t, "step gap")
			cfg.Capacity = append(cfg.Capacity, sim.CapacityStep{At: at, Nodes: rapid.IntRange(0, cfg.Nodes).Draw(t, "step nodes")})
		}
		if steps > 0 {
			at += rapid.Int64Range(0, 7200).Draw(t, "restore gap")
			cfg.Capacity = append(cfg.Capacity, sim.CapacityStep{At: at, Nodes: cfg.Nodes})
		}
	}
	return cfg, jobs
}

// runHarness simulates to the end, failing t on an error or when the
// simulation does not stop within a generous bound.
func runHarness(t *rapid.T, cfg sim.Config, jobs []sim.Job) *simtest.Harness {
	h, err := simtest.NewHarness(cfg, jobs)
	if err != nil {
		t.Fatalf("new harness: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Run(ctx); err != nil {
		t.Fatalf("run: %v\n%s", err, h.Table())
	}
	return h
}

// TestProperty_Safety: over random workloads with every feature, the
// Harness invariants hold (never over-allocate at any start, start >=
// submit and >= eligible, dependents start after their predecessor
// ended, run time = min(run, limit)), every job finishes or leaves, and
// only jobs cancelled while pending (under CancelLeave) leave, at
// max(cancel, submit), never having started.
func TestProperty_Safety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		h := runHarness(t, cfg, jobs)
		if err := h.Complete(); err != nil {
			t.Fatalf("%v\n%s", err, h.Table())
		}
		for id := range jobs {
			j := h.Sim.Job(sim.JobID(id))
			left, isLeft := h.LeftAt(sim.JobID(id))
			ghost := cfg.Cancelled == sim.CancelLeave && jobs[id].Cancel > 0
			switch {
			case ghost && !isLeft:
				t.Fatalf("job %d cancelled at %d did not leave\n%s", id, j.Cancel, h.Table())
			case ghost && left != max(j.Cancel, j.Submit):
				t.Fatalf("job %d left at %d, want max(cancel %d, submit %d)", id, left, j.Cancel, j.Submit)
			case !ghost && isLeft:
				t.Fatalf("job %d without a cancellation left at %d", id, left)
			}
		}
	})
}

// TestProperty_Deterministic: the same input gives the same Recorder
// calls, in the same order, and the same event count.
func TestProperty_Deterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, allFeatures)
		a := runHarness(t, cfg, jobs)
		b := runHarness(t, cfg, slices.Clone(jobs))
		if diff := gocmp.Diff(a.Records, b.Records); diff != "" {
			t.Fatalf("two runs differ (-first +second):\n%s", diff)
		}
		if a.Sim.Events() != b.Sim.Events() {
			t.Fatalf("events %d and %d", a.Sim.Events(), b.Sim.Events())
		}
	})
}

// TestProperty_CloneEqualsRun: cloning at a random time and running the
// clone (and the original) to the end gives the same Recorder calls as an
// uninterrupted run; a job submitted into a second clone changes neither,
// and that clone keeps the Harness invariants. Up to 700 jobs, so the
// job states span several copy-on-write chunks. At the clone time it also
// checks Snapshot's consistency and that EstimatedStart does not plan in
// the past.
func TestProperty_CloneEqualsRun(t *testing.T) {
	o := allFeatures
	o.maxJobs = 700
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, o)
		ref := runHarness(t, cfg, jobs)
		end := int64(0)
		if n := len(ref.Records); n > 0 {
			end = ref.Records[n-1].At
		}
		at := rapid.Int64Range(-10, end+10).Draw(t, "clone at")

		h, err := simtest.NewHarness(cfg, jobs)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := h.Sim.RunUntil(ctx, at); err != nil {
			t.Fatal(err)
		}
		checkSnapshot(t, h)
		c := h.Clone()
		c2 := h.Clone()
		if n := len(jobs); n > 0 {
			probe := jobs[rapid.IntRange(0, n-1).Draw(t, "probe")]
			if est, ok := c2.Sim.EstimatedStart(probe); ok && est < c2.Sim.Now() {
				t.Fatalf("EstimatedStart = %d before Now %d", est, c2.Sim.Now())
			}
			probe.Submit = c2.Sim.Now() + rapid.Int64Range(0, 3600).Draw(t, "extra submit")
			probe.Cancel = 0
			probe.After = sim.NoJob
			if rapid.Bool().Draw(t, "extra after?") {
				probe.After = sim.JobID(rapid.IntRange(0, n-1).Draw(t, "extra after"))
			}
			if _, err := c2.Submit(probe); err != nil {
				t.Fatal(err)
			}
		}
		// Run the three in a random order: a clone must not see the
		// original's later writes, nor the other way round.
		runs := []*simtest.Harness{c2, c, h}
		for _, x := range rapid.Permutation(runs).Draw(t, "run order") {
			if err := x.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if diff := gocmp.Diff(ref.Records, c.Records); diff != "" {
			t.Fatalf("clone at %d differs from the run (-run +clone):\n%s", at, diff)
		}
		if diff := gocmp.Diff(ref.Records, h.Records); diff != "" {
			t.Fatalf("original after cloning at %d differs from the run (-run +original):\n%s", at, diff)
		}
		if err := c2.Complete(); err != nil {
			t.Fatalf("clone with a submitted job: %v", err)
		}
	})
}

// checkSnapshot checks a Snapshot against the Harness's records.
func checkSnapshot(t *rapid.T, h *simtest.Harness) {
	s := h.Sim.Snapshot()
	busy := 0
	for i, r := range s.Running {
		busy += int(r.Nodes)
		if st, ok := h.Start(r.ID); !ok || st != r.Start {
			t.Fatalf("snapshot: running job %d start %d, harness %d", r.ID, r.Start, st)
		}
		if i > 0 && cmp.Or(cmp.Compare(s.Running[i-1].Start, r.Start), cmp.Compare(s.Running[i-1].ID, r.ID)) >= 0 {
			t.Fatalf("snapshot: running jobs out of (start, ID) order at %d", i)
		}
	}
	if busy != h.Busy() || s.FreeNodes != s.Capacity-busy || s.Capacity != h.CapacityAt(s.Now) {
		t.Fatalf("snapshot: busy %d (harness %d), free %d, capacity %d (harness %d)", busy, h.Busy(), s.FreeNodes, s.Capacity, h.CapacityAt(s.Now))
	}
	for i, p := range s.Pending {
		if _, ok := h.Start(p.ID); ok {
			t.Fatalf("snapshot: pending job %d has started", p.ID)
		}
		if p.Submit > s.Now || p.Eligible > s.Now || p.Eligible < p.Submit {
			t.Fatalf("snapshot: pending job %d submit %d eligible %d at %d", p.ID, p.Submit, p.Eligible, s.Now)
		}
		if i > 0 && s.Pending[i-1].Priority < p.Priority {
			t.Fatalf("snapshot: pending jobs out of priority order at %d", i)
		}
	}
}

// TestProperty_FCFSWithoutBackfill: with the main pass alone and no
// per-user limits or holds, jobs start in queue order: with equal sizes
// under age and size weights, and with any sizes under zero weights, the
// queue is in (submit, ID) order and no job starts before one ahead of it.
// Jobs that leave without running are left out.
func TestProperty_FCFSWithoutBackfill(t *testing.T) {
	o := genOptions{flavours: []sim.Flavour{sim.BackfillNone}, cancels: true, capacity: true, minute: true, zeroRuns: true}
	rapid.Check(t, func(t *rapid.T) {
		sameSize := rapid.Bool().Draw(t, "same size")
		o.sameSize = sameSize
		cfg, jobs := genWorkload(t, o)
		if sameSize {
			cfg.Priority.AgeWeight = rapid.SampledFrom([]float64{0, 1, 7000}).Draw(t, "age")
			cfg.Priority.SizeWeight = rapid.SampledFrom([]float64{0, 100}).Draw(t, "size")
			cfg.Priority.MaxAgeSec = rapid.Int64Range(1, 86400).Draw(t, "maxage")
			cfg.Priority.AgeUncapped = rapid.Bool().Draw(t, "uncapped")
			cfg.AgeFromSubmit = rapid.Bool().Draw(t, "agefromsubmit")
		}
		h := runHarness(t, cfg, jobs)
		if err := h.Complete(); err != nil {
			t.Fatal(err)
		}
		ids := queueOrder(h, len(jobs))
		prev, prevID := simtest.NotYet, sim.NoJob
		for _, id := range ids {
			st, ok := h.Start(id)
			if !ok {
				continue // left without running
			}
			if st < prev {
				t.Fatalf("job %d started at %d, before job %d ahead of it (%d)\n%s", id, st, prevID, prev, h.Table())
			}
			prev, prevID = st, id
		}
	})
}

// queueOrder returns the job IDs by (normalised submit, ID).
func queueOrder(h *simtest.Harness, n int) []sim.JobID {
	ids := make([]sim.JobID, n)
	for i := range ids {
		ids[i] = sim.JobID(i)
	}
	slices.SortFunc(ids, func(a, b sim.JobID) int {
		return cmp.Or(cmp.Compare(h.Sim.Job(a).Submit, h.Sim.Job(b).Submit), cmp.Compare(a, b))
	})
	return ids
}

// TestProperty_TopJobReservation: the top job of a backfill pass never
// starts later than the reservation the pass gave it, under EASY (where
// it is the only reservation) and conservative backfill. Some jobs have a
// time-min: a job backfilled with one is granted a limit that delays no
// reservation, so the property holds with them too (the top job is
// planned with its time-min, running jobs hold their nodes to their
// granted limits, Sim.Limit).
//
// The reservation is recomputed here from the records, independently of
// the planner: with zero weights, no holds and no limits the queue is in
// (submit, ID) order, so the top job at a pass at time b is the first job
// in that order that is not a ghost, was submitted by b and starts after
// b. The jobs holding nodes during the pass are those running across b,
// plus those that started at b ahead of the top job (the main pass, or
// the backfill pass before it reached the top job). Each holds its nodes
// to start + limit rounded up to the resolution grid from b; capacity
// steps after b are rounded up to the grid too. The interval is a
// multiple of the resolution and the window is unbounded, so successive
// passes share the grid and every job fits in the window. (When the
// interval is not a multiple of the resolution, a later pass rounds the
// same running jobs' ends onto a shifted grid and may plan, and backfill,
// up to resolution-1 seconds past an earlier reservation: this property
// then fails, as the planner rounds "from now" by design.) Passes at which
// a zero-length job started are skipped: a second main pass then follows
// the backfill pass at the same second, and the records cannot tell which
// pass started what.
func TestProperty_TopJobReservation(t *testing.T) {
	o := genOptions{
		flavours: []sim.Flavour{sim.BackfillEASY, sim.BackfillConservative},
		cancels:  true, capacity: true, zeroRuns: true, fitGrid: true, timeMin: true,
	}
	rapid.Check(t, func(t *rapid.T) {
		cfg, jobs := genWorkload(t, o)
		h := runHarness(t, cfg, jobs)
		if err := h.Complete(); err != nil {
			t.Fatal(err)
		}
		checkTopJobReservations(t, h, len(jobs))
	})
}

func checkTopJobReservations(t *rapid.T, h *simtest.Harness, n int) {
	cfg := h.Sim.Config()
	if n == 0 {
		return
	}
	order := queueOrder(h, n)
	rank := make([]int, n)
	for r, id := range order {
		rank[id] = r
	}
	ghost := func(id sim.JobID) bool { return h.Sim.Job(id).Cancel > 0 }
	iv := cfg.Backfill.IntervalSec
	first := h.Sim.Job(order[0]).Submit
	last := h.Records[len(h.Records)-1].At
	zeroAt := map[int64]bool{}
	for id := range n {
		st, ok := h.Start(sim.JobID(id))
		if en, _ := h.End(sim.JobID(id)); ok && en == st {
			zeroAt[st] = true
		}
	}
	top := 0 // index into order: the top job only moves forward
	for b := (first + iv - 1) / iv * iv; b <= last; b += iv {
		for top < n {
			id := order[top]
			if st, _ := h.Start(id); ghost(id) || st <= b {
				top++
				continue
			}
			break
		}
		if top == n {
			return
		}
		T := order[top]
		if h.Sim.Job(T).Submit > b || zeroAt[b] {
			continue
		}
		r := reservation(h, b, T, rank)
		if st, _ := h.Start(T); st > r {
			t.Fatalf("%s backfill: top job %d at the pass at %d was reserved at %d but started at %d\n%s",
				cfg.Backfill.Flavour, T, b, r, st, h.Table())
		}
	}
}

// reservation returns the earliest start the planner can give job T at
// the backfill pass at b (see TestProperty_TopJobReservation).
func reservation(h *simtest.Harness, b int64, T sim.JobID, rank []int) int64 {
	cfg := h.Sim.Config()
	res := cfg.Backfill.ResolutionSec
	grid := func(at int64) int64 { return b + (max(at-b, 0)+res-1)/res*res }
	type step struct {
		at    int64
		delta int
	}
	free := h.CapacityAt(b)
	var steps []step
	for id := range rank {
		st, ok := h.Start(sim.JobID(id))
		if !ok || st > b {
			continue
		}
		en, _ := h.End(sim.JobID(id))
		if st < b && en <= b || st == b && rank[id] > rank[T] {
			continue // ended before the pass, or backfilled behind T
		}
		j := h.Sim.Job(sim.JobID(id))
		free -= int(j.Nodes)
		lim, _ := h.Sim.Limit(sim.JobID(id))
		steps = append(steps, step{grid(st + lim), int(j.Nodes)})
	}
	prev := h.CapacityAt(b)
	for _, c := range cfg.Capacity {
		if c.At > b {
			steps = append(steps, step{grid(c.At), c.Nodes - prev})
			prev = c.Nodes
		}
	}
	slices.SortStableFunc(steps, func(x, y step) int { return cmp.Compare(x.at, y.at) })
	times, frees := []int64{b}, []int{free}
	for _, s := range steps {
		if s.at == times[len(times)-1] {
			frees[len(frees)-1] += s.delta
			continue
		}
		times = append(times, s.at)
		frees = append(frees, frees[len(frees)-1]+s.delta)
	}
	j := h.Sim.Job(T)
	plan := j.LimitSec
	if j.TimeMinSec > 0 {
		plan = j.TimeMinSec
	}
	dur := (plan + res - 1) / res * res
	for k := range times {
		fits := true
		for m := k; m < len(times) && (m == k || times[m] < times[k]+dur); m++ {
			if frees[m] < int(j.Nodes) {
				fits = false
				break
			}
		}
		if fits {
			return times[k]
		}
	}
	panic("job fits nowhere: capacity should end at Nodes")
}
