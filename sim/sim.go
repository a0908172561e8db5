package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrInfeasibleJob is returned for a job that needs more nodes than the
// partition has, or has no positive time limit.
var ErrInfeasibleJob = errors.New("infeasible job")

// ErrNeverStarts is returned by RunUntilStarted when the job can no longer
// start (it left the queue, or the simulation ran out of events).
var ErrNeverStarts = errors.New("job never starts")

// status is a job's place in the simulation.
type status uint8

const (
	statusFuture  status = iota // not yet submitted
	statusHeld                  // submitted, waiting for Eligible or its predecessor
	statusPending               // in the queue, eligible
	statusRunning
	statusDone
	statusLeft // left the queue without running
)

// jobState is the mutable part of a job; Clone copies these.
type jobState struct {
	start  int64 // Unix seconds; valid when running or done
	end    int64 // Unix seconds; valid when done or left
	elig   int64 // when the job became eligible (age counts from here)
	pos    int32 // index in Sim.pending while pending, in Sim.running while running
	status status
}

// Sim is one simulation. It is not safe for concurrent use; Clone it to
// explore alternatives in parallel.
type Sim struct {
	cfg   Config
	jobs  []job     // immutable once added; clones share the array (cap-limited)
	names nameTable // the jobs' names (job.name); shared likewise
	st    states
	rec   Recorder

	now      int64
	arrivals []JobID // trace jobs by (submit, id); shared, immutable
	next     int     // next arrival
	events   eventHeap
	seq      uint64
	nevents  int64
	nextBF   int64   // next backfill pass time
	bfIdle   bool    // the last backfill pass started nothing and nothing happened since
	mainDue  bool    // something happened since the last main pass (Config.MainIntervalSec)
	capIdx   int     // next capacity step
	sync     syncCal // Config.SyncPoints

	pending []JobID    // eligible queued jobs, unordered (jobState.pos is the index)
	idx     *prioIndex // the pending jobs in priority order; nil until a pass needs it
	work    Work       // what the passes did
	// forceSteps plans backfill on the step list even where the slot grid
	// applies (a test hook: both must plan alike).
	forceSteps bool
	// noSkipRun makes backfill passes step over every skipped job one
	// by one (skipRun off), for tests; bulkSkipped counts the jobs skipRun
	// consumed.
	noSkipRun   bool
	bulkSkipped int64
	// reference runs every pass the plain way, as a reference for tests:
	// a full sort of the queue instead of the index and its bounds, and
	// backfill passes that never stop early.
	reference bool
	running   []JobID // running jobs, unordered
	// granted holds the limits backfill started jobs with a time-min
	// under, in start order (only those below the job's LimitSec):
	// shared by clones, which append to their own copy.
	granted []grant
	// runRel is, for each job of running (same index), when it reaches
	// its time limit and its nodes: what a backfill plan reads, kept
	// contiguous so a pass does not visit the job tables of every
	// running job.
	runRel   []runEnd
	busy     int // nodes held by running jobs
	capacity int // usable nodes now

	dependents map[JobID][]JobID // After -> jobs waiting on it (shared; copy-on-write in Submit)

	users      int       // number of user indices
	userSeen   []bool    // per user: a job of it was submitted (Priority.FairShareSeenUsers)
	seenUsers  int       // users with userSeen set
	userJobs   []int32   // running jobs per user
	userNodes  []int32   // running nodes per user
	busyUsers  []int32   // users with running nodes, in the order they got them
	busyPos    []int32   // per user: index in busyUsers, -1 when absent
	usage      []float64 // decayed node-seconds per user, scaled (see advanceUsage)
	usageTotal float64   // sum of usage
	usageAt    int64     // time usage was last brought up to date
	usageT0    int64     // time at which the usage scale is 1
	// usageLogScale is the sum of ln of the factors advanceUsage divided
	// usage by: ln(usageTotal)+usageLogScale never decreases (boundDrift).
	usageLogScale float64

	scratch scratch // reusable buffers, never shared by clones

	// over holds a rollout's run-time overrides, by ID (Rollout); nil
	// otherwise. predSec replaces Job.PredRunSec while usePredSec
	// (EstimatedStartWith).
	over       []RunOverride
	predSec    []int64
	usePredSec bool
}

// New builds a simulation of jobs (IDs are their indices) under cfg, with
// the clock at the first submission (or 0 with no jobs). rec may be nil.
// The simulation holds a copy of jobs (TableOf).
func New(cfg Config, jobs []Job, rec Recorder) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return NewFromTable(cfg, TableOf(jobs), rec)
}

// NewFromTable is New that adopts t instead of copying a []Job (a replay
// of millions of jobs then holds them once): it normalises t's rows in
// place (RunSec capped at the limit; with MinuteRounding, times rounded;
// on an error some may be), so t.Job afterwards returns the jobs as the
// simulation sees them. The caller must not change t afterwards.
func NewFromTable(cfg Config, t *Table, rec Recorder) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rec == nil {
		rec = nopRecorder{}
	}
	s := &Sim{cfg: cfg, rec: rec, capacity: cfg.Nodes}
	var err error
	if s.sync, err = newSyncCal(cfg.SyncPoints); err != nil {
		return nil, err
	}
	s.jobs, s.names = t.rows, t.names
	s.st = newStates(len(s.jobs))
	s.arrivals = make([]JobID, len(s.jobs))
	for i := range s.jobs {
		j := &s.jobs[i]
		if err := s.check(j); err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i, s.names.get(j.name), err)
		}
		s.normalise(j)
		s.arrivals[i] = JobID(i)
		s.users = max(s.users, int(j.User)+1)
		if j.After != NoJob {
			if j.After < 0 || int(j.After) >= len(s.jobs) || int(j.After) == i {
				return nil, fmt.Errorf("job %d (%s): %w: After %d out of range", i, s.names.get(j.name), ErrInfeasibleJob, j.After)
			}
			if s.dependents == nil {
				s.dependents = map[JobID][]JobID{}
			}
			s.dependents[j.After] = append(s.dependents[j.After], JobID(i))
		}
	}
	if err := checkCycles(s.jobs, &s.names); err != nil {
		return nil, err
	}
	slices.SortStableFunc(s.arrivals, func(a, b JobID) int {
		return cmpInt64(s.jobs[a].Submit, s.jobs[b].Submit)
	})
	s.jobs = s.jobs[:len(s.jobs):len(s.jobs)]
	s.userJobs = make([]int32, s.users)
	s.userNodes = make([]int32, s.users)
	s.busyPos = slices.Repeat([]int32{-1}, s.users)
	s.usage = make([]float64, s.users)
	if len(s.arrivals) > 0 {
		s.now = s.jobs[s.arrivals[0]].Submit
	}
	s.usageAt, s.usageT0 = s.now, s.now
	s.nextBF = s.alignBF(s.now)
	s.sync.seen = s.now
	s.applyCapacityUntil(s.now)
	return s, nil
}

// checkCycles rejects dependency cycles (jobs that would be held
// forever), following each After chain once.
func checkCycles(jobs []job, names *nameTable) error {
	const (
		unseen = iota
		onPath
		clear
	)
	mark := make([]uint8, len(jobs))
	for i := range jobs {
		if mark[i] != unseen {
			continue
		}
		k := i
		for k >= 0 && mark[k] == unseen {
			mark[k] = onPath
			k = int(jobs[k].After)
		}
		if k >= 0 && mark[k] == onPath {
			return fmt.Errorf("job %d (%s): %w: dependency cycle", k, names.get(jobs[k].name), ErrInfeasibleJob)
		}
		for k = i; k >= 0 && mark[k] == onPath; k = int(jobs[k].After) {
			mark[k] = clear
		}
	}
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Sim) check(j *job) error {
	if j.Nodes < 1 || int(j.Nodes) > s.cfg.Nodes {
		return fmt.Errorf("%w: needs %d nodes of %d", ErrInfeasibleJob, j.Nodes, s.cfg.Nodes)
	}
	if j.LimitSec <= 0 {
		return fmt.Errorf("%w: time limit %d s", ErrInfeasibleJob, j.LimitSec)
	}
	if j.RunSec < 0 {
		return fmt.Errorf("%w: run time %d s", ErrInfeasibleJob, j.RunSec)
	}
	if j.timeMin == math.MaxInt32 {
		return fmt.Errorf("%w: time-min of %d s or more", ErrInfeasibleJob, int64(math.MaxInt32))
	}
	return nil
}

// normalise applies the run-time clamp and the minute rounding.
func (s *Sim) normalise(j *job) {
	j.RunSec = min(j.RunSec, j.LimitSec)
	if s.cfg.Cancelled == CancelRunZero && j.Cancel > 0 {
		j.Cancel, j.RunSec = 0, 0
	}
	if s.cfg.MinuteRounding {
		j.Submit = floorDiv(j.Submit, 60) * 60
		j.LimitSec = (j.LimitSec + 59) / 60 * 60
		j.RunSec = min(max(60, (j.RunSec+59)/60*60), j.LimitSec)
		j.timeMin = timeMinRow((int64(j.timeMin)+59)/60*60, j.LimitSec)
		if j.Eligible > 0 {
			j.Eligible = (j.Eligible + 59) / 60 * 60
		}
	}
	if j.User < 0 {
		j.User = -1
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Now returns the simulation clock (Unix seconds).
func (s *Sim) Now() int64 { return s.now }

// Config returns the configuration.
func (s *Sim) Config() Config { return s.cfg }

// Job returns the job with the given ID (after normalisation).
func (s *Sim) Job(id JobID) Job { return s.jobs[id].export(&s.names) }

// NumJobs returns the number of jobs, external ones included.
func (s *Sim) NumJobs() int { return len(s.jobs) }

// Events returns the number of events processed so far.
func (s *Sim) Events() int64 { return s.nevents }

// Started returns a job's start time, and false if it has not started.
func (s *Sim) Started(id JobID) (int64, bool) {
	st := s.st.get(id)
	return st.start, st.status == statusRunning || st.status == statusDone
}

// Ended returns a job's end (or leave) time, and false if it has not
// ended.
func (s *Sim) Ended(id JobID) (int64, bool) {
	st := s.st.get(id)
	return st.end, st.status == statusDone || st.status == statusLeft
}

// Submit adds an external job (the service chain's P or Q) at
// max(j.Submit, Now()) and returns its ID. The job is queued when the
// simulation next runs.
func (s *Sim) Submit(sj Job) (JobID, error) {
	j := row(&sj, nameRef{})
	if err := s.check(&j); err != nil {
		return NoJob, fmt.Errorf("submit %s: %w", sj.Name, err)
	}
	if j.After != NoJob && (j.After < 0 || int(j.After) >= len(s.jobs)) {
		return NoJob, fmt.Errorf("submit %s: %w: After %d out of range", sj.Name, ErrInfeasibleJob, j.After)
	}
	s.normalise(&j)
	j.Submit = max(j.Submit, s.now)
	j.name = s.names.addWhole(sj.Name)
	id := JobID(len(s.jobs))
	s.jobs = append(s.jobs, j)
	s.jobs = s.jobs[:len(s.jobs):len(s.jobs)]
	s.st.append(jobState{})
	if int(j.User) >= s.users {
		n := int(j.User) + 1
		s.userJobs = append(s.userJobs, make([]int32, n-s.users)...)
		s.userNodes = append(s.userNodes, make([]int32, n-s.users)...)
		s.busyPos = append(s.busyPos, slices.Repeat([]int32{-1}, n-s.users)...)
		s.usage = append(s.usage, make([]float64, n-s.users)...)
		s.users = n
	}
	if j.After != NoJob {
		deps := make(map[JobID][]JobID, len(s.dependents)+1)
		for k, v := range s.dependents {
			deps[k] = v
		}
		deps[j.After] = append(slices.Clip(deps[j.After]), id)
		s.dependents = deps
	}
	s.push(j.Submit, eventJobSubmit, id)
	return id, nil
}

func (s *Sim) push(at int64, kind eventKind, id JobID) {
	s.seq++
	s.events.push(event{at: at, kind: kind, seq: s.seq, job: id})
}

// Clone returns an independent copy of the simulation that reports to rec
// (nil: nothing). The job table and arrivals are shared read-only; the
// mutable state is copied, so the cost is linear in the number of jobs
// with a small constant.
func (s *Sim) Clone(rec Recorder) *Sim {
	if rec == nil {
		rec = nopRecorder{}
	}
	c := *s
	c.rec = rec
	c.st = s.st.fork()
	c.events = slices.Clone(s.events)
	c.pending = slices.Clone(s.pending)
	c.running = slices.Clone(s.running)
	c.runRel = slices.Clone(s.runRel)
	c.granted = slices.Clip(s.granted)
	c.userJobs = slices.Clone(s.userJobs)
	c.userNodes = slices.Clone(s.userNodes)
	c.busyUsers = slices.Clone(s.busyUsers)
	c.busyPos = slices.Clone(s.busyPos)
	c.usage = slices.Clone(s.usage)
	c.userSeen = slices.Clone(s.userSeen)
	c.scratch = scratch{}
	c.idx = nil // rebuilt by the clone's first pass
	return &c
}

// nextTime returns the time of the next thing to do, and false when there
// is nothing left.
func (s *Sim) nextTime() (int64, bool) {
	t, ok := int64(0), false
	if s.next < len(s.arrivals) {
		t, ok = s.jobs[s.arrivals[s.next]].Submit, true
	}
	if len(s.events) > 0 && (!ok || s.events[0].at < t) {
		t, ok = s.events[0].at, true
	}
	if s.capIdx < len(s.cfg.Capacity) && (!ok || s.cfg.Capacity[s.capIdx].At < t) {
		t, ok = s.cfg.Capacity[s.capIdx].At, true
	}
	if s.cfg.Backfill.Flavour != BackfillNone && len(s.pending) > 0 && !(s.bfIdle && !ok) && (!ok || s.nextBF < t) {
		t, ok = s.nextBF, true
	}
	if s.mainDue && len(s.pending) > 0 {
		if m := s.alignMain(s.now); !ok || m < t {
			t, ok = m, true
		}
	}
	if s.sync.on && len(s.pending) > 0 && (ok || s.sync.misses <= s.sync.week) {
		// A job held back by a sync point may start at it.
		if p := s.sync.nextAfter(s.now); p != noPoint && (!ok || p < t) {
			t, ok = p, true
		}
	}
	return t, ok
}

// RunUntil processes everything that happens at or before t and leaves the
// clock at t (or later, if it already was).
func (s *Sim) RunUntil(ctx context.Context, t int64) error {
	for n := 0; ; n++ {
		at, ok := s.nextTime()
		if !ok || at > t {
			break
		}
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.step(at)
	}
	s.now = max(s.now, t)
	return nil
}

// RunBefore processes everything that happens strictly before t and
// leaves the clock at t (or later, if it already was) with what happens
// at t not yet processed: trace arrivals, ends, capacity steps and the
// scheduling passes due at t all wait for the next Run*, which handles
// them in one step together with any job Submit adds at t. It is the
// state a provisioner deciding at t sees, and a job it submits at t is
// queued before t's main and backfill passes. Snapshot and
// EstimatedStart then describe the queue just before t's events.
func (s *Sim) RunBefore(ctx context.Context, t int64) error {
	if err := s.RunUntil(ctx, t-1); err != nil { // times are whole seconds
		return err
	}
	s.now = max(s.now, t)
	return nil
}

// Run processes every event until nothing is left to do.
func (s *Sim) Run(ctx context.Context) error {
	for n := 0; ; n++ {
		at, ok := s.nextTime()
		if !ok {
			return nil
		}
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.step(at)
	}
}

// RunUntilStarted runs until job id starts and returns its start time.
func (s *Sim) RunUntilStarted(ctx context.Context, id JobID) (int64, error) {
	for n := 0; ; n++ {
		if t, ok := s.Started(id); ok {
			return t, nil
		}
		if st := s.st.get(id).status; st == statusLeft {
			return 0, fmt.Errorf("job %s: %w: it left the queue", s.names.get(s.jobs[id].name), ErrNeverStarts)
		}
		at, ok := s.nextTime()
		if !ok {
			return 0, fmt.Errorf("job %s: %w: no events left", s.names.get(s.jobs[id].name), ErrNeverStarts)
		}
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		s.step(at)
	}
}
