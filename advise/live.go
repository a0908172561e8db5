package advise

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// ErrNoJob means P is not in the queue or the history.
var ErrNoJob = errors.New("job not found")

// Observation is what a Source reads from a live cluster at one time.
type Observation struct {
	// Now is the time of the reading, Unix seconds.
	Now int64 `json:"now"`
	// Queue is squeue's jobs (any state; held and ended ones are ignored
	// for the queue).
	Queue []Job `json:"queue"`
	// History is sacct's jobs of the last LiveOptions.HistorySec or more
	// (submitted, running or ended in it); jobs also in Queue are taken
	// from Queue. Empty on a cluster without accounting: the hist_*
	// features then see only the current queue.
	History []Job `json:"history"`
	// Nodes is the partition's size and Capacity its usable nodes now
	// (sinfo); 0 means the model's simulator configuration (Nodes) and
	// Nodes (Capacity).
	Nodes    int `json:"nodes"`
	Capacity int `json:"capacity"`
}

// LiveOptions configures how an Observation becomes the features' input.
type LiveOptions struct {
	// Config is the simulator configuration the model was trained with
	// (priority weights, backfill); its Nodes is replaced by
	// Observation.Nodes when that is set.
	Config sim.Config
	// Location is the zone of the calendar features (the protocol's); nil
	// means UTC.
	Location *time.Location
	// SampleSec, HistorySec and RecentStarts are the history's sampling
	// interval and span (seconds) and how many recent starts the mean
	// wait is over; 0 means features' defaults (600, 86400, 100).
	SampleSec, HistorySec int64
	RecentStarts          int
	// DefaultLimitSec is the limit of a job without one (UNLIMITED); 0
	// means 365 days.
	DefaultLimitSec int64
	// Partition keeps only its jobs; "" means P's partition.
	Partition string
	// PredictRunTimes sets the jobs' predicted run times from the
	// history (sim.PredictRunTimes over sacct's ended jobs), as the ls6
	// protocol does from the trace; false leaves them unpredicted.
	PredictRunTimes bool
	// RuntimeModel, when not nil, is the run-time model of the model's
	// features.ModelEstimateName column (Open sets it from the manifest):
	// BuildState predicts the median run time of every running and
	// pending job with it, from the partition's queue and sacct history
	// as known at Now, into features.State.MedianRunSec, so that
	// features.Vector writes the column after the others.
	RuntimeModel *jobruntime.Model
	// Wide is set for a model trained with the wide columns
	// (features.WideNames after Names'; Open sets it from the manifest):
	// BuildState sets features.State.Wide, so that features.Vector writes
	// them from the rebuilt queue as features build --wide does from the
	// simulator's.
	Wide bool
}

func (o *LiveOptions) withDefaults() {
	if o.SampleSec <= 0 {
		o.SampleSec = 600
	}
	if o.HistorySec <= 0 {
		o.HistorySec = 86400
	}
	if o.RecentStarts <= 0 {
		o.RecentStarts = 100
	}
	if o.DefaultLimitSec <= 0 {
		o.DefaultLimitSec = 365 * 86400
	}
}

// Chain is P as the live queue shows it at a decision.
type Chain struct {
	P Job `json:"p"`
	// Started reports whether P runs; ExpectedEnd is its start (or, while
	// pending, now) plus its limit, Unix seconds.
	Started     bool  `json:"started"`
	ExpectedEnd int64 `json:"expected_end"`
}

// liveJob is a job of the observation with its simulator fields.
type liveJob struct {
	Job
	user    int32
	nodes   int32
	limit   int64
	elig    int64
	predRun int64
	queued  bool // from squeue: the queue at now comes from squeue only
}

// BuildState reconstructs the features' input at obs.Now for the chain
// whose predecessor is squeue's job pJobID (its ID, "123" or "45_7", or
// its raw ID): the queue becomes a simulation (sim.FromQueue) in the
// model's configuration, the history of the last HistorySec is sampled on
// the SampleSec grid from sacct's submit, eligible, start and end times
// (pending = eligible ≤ t < start, running = start ≤ t < end), and the
// recent waits come from the starts before now. With o.RuntimeModel the
// state's MedianRunSec are that model's medians of the running and
// pending jobs (runtimeMedians). It returns an error wrapping ErrNoJob
// when P is not in the queue (it ended, or never was).
func BuildState(obs *Observation, pJobID string, o LiveOptions) (*features.State, Chain, error) {
	o.withDefaults()
	cfg := o.Config
	if obs.Nodes > 0 {
		cfg.Nodes = obs.Nodes
	}
	pi := slices.IndexFunc(obs.Queue, func(j Job) bool { return j.matches(pJobID) })
	if pi < 0 || obs.Queue[pi].State == JobEnded {
		return nil, Chain{}, fmt.Errorf("%w: %s is not in the queue", ErrNoJob, pJobID)
	}
	p := obs.Queue[pi]
	if p.State != JobPending && p.State != JobRunning {
		return nil, Chain{}, fmt.Errorf("%w: %s is %s", ErrNoJob, pJobID, p.State)
	}
	part := o.Partition
	if part == "" {
		part = p.Partition
	}
	jobs, queued := mergeJobs(obs, part, p)
	users := userIndex(jobs)
	lj := make([]liveJob, len(jobs))
	for i, j := range jobs {
		lj[i] = liveJob{Job: j, user: users[j.User], nodes: min(max(j.Nodes, 1), int32(cfg.Nodes)), limit: j.LimitSec, elig: j.Eligible, queued: queued[j.ID]}
		if lj[i].limit <= 0 {
			lj[i].limit = o.DefaultLimitSec
		}
		if lj[i].elig <= 0 {
			lj[i].elig = j.Submit
		}
	}
	if o.PredictRunTimes {
		predict(lj, obs.Now)
	}
	q := sim.Queue{Now: obs.Now, Capacity: obs.Capacity}
	pid := sim.NoJob
	var src []int // src[k]: the live job of q.Jobs[k]
	for i := range lj {
		j := &lj[i]
		running := j.queued && j.State == JobRunning && j.Start > 0 && j.Start <= obs.Now
		pending := j.queued && j.State == JobPending && j.Submit < obs.Now && j.elig <= obs.Now
		// Held jobs (and pending ones not yet eligible) are listed as
		// squeue lists them when the configuration shows them to the
		// features (Config.HeldInSnapshot).
		held := cfg.HeldInSnapshot && j.queued && (j.State == JobHeld || j.State == JobPending && !pending) && j.Submit < obs.Now
		if j.matches(pJobID) {
			held = false
			j.predRun = 0 // the service job runs to its limit, as in training
			if !running && !pending {
				pending = true
			}
			pid = sim.JobID(len(q.Jobs))
		} else if !running && !pending && !held {
			continue
		}
		sj := sim.Job{Name: j.ID, User: j.user, Nodes: j.nodes, Submit: j.Submit, Eligible: j.elig,
			LimitSec: j.limit, PredRunSec: j.predRun, After: sim.NoJob}
		if running {
			sj.TraceStart = j.Start
		}
		if held {
			sj.TraceStart = 0
			q.Held = append(q.Held, make([]bool, len(q.Jobs)+1-len(q.Held))...)
			q.Held[len(q.Jobs)] = true
		}
		q.Jobs = append(q.Jobs, sj)
		src = append(src, i)
	}
	if o.Config.Priority.FairShareWeight != 0 {
		q.Usage = usage(lj, len(users), obs.Now, o.HistorySec, cfg.Priority.DecayHalfLifeSec)
	}
	s, err := sim.FromQueue(cfg, q)
	if err != nil {
		return nil, Chain{}, fmt.Errorf("rebuild the queue: %w", err)
	}
	pj := s.Job(pid)
	qj := pj
	qj.Name, qj.TraceStart, qj.PredRunSec, qj.Eligible = "Q", 0, 0, 0
	rec := newStarts(lj)
	mean, n := rec.meanBefore(obs.Now, o.RecentStarts)
	st := &features.State{Sim: s, PID: pid, P: pj, Q: qj, RecentMeanWaitSec: mean, RecentStarts: n,
		History: sampleHistory(lj, rec, obs.Now, &o, cfg), Location: o.Location, Wide: o.Wide}
	if o.RuntimeModel != nil {
		st.MedianRunSec = runtimeMedians(o.RuntimeModel, lj, src, q.Jobs, pid)
	}
	ch := Chain{P: p}
	if start, ok := s.Started(pid); ok {
		ch.Started, ch.ExpectedEnd = true, start+pj.LimitSec
	} else {
		ch.ExpectedEnd = obs.Now + pj.LimitSec
	}
	return st, ch, nil
}

// matches reports whether id names j: its ID or its raw ID.
func (j *Job) matches(id string) bool {
	return j.ID == id || j.Raw != 0 && fmt.Sprint(j.Raw) == id
}

// mergeJobs returns the jobs of partition part (all with part ""), P
// always: squeue's (with the run-time model's fields of sacct's record
// of the same job, fillRuntimeFields), then sacct's that squeue does not
// show, by raw ID (submission order) then ID; and the set of IDs squeue
// shows.
func mergeJobs(obs *Observation, part string, p Job) ([]Job, map[string]bool) {
	seen := make(map[string]bool, len(obs.Queue))
	queuedAt := make(map[string]int, len(obs.Queue))
	var jobs []Job
	keep := func(j Job) bool { return part == "" || j.Partition == part || j.ID == p.ID }
	for _, j := range obs.Queue {
		if keep(j) && !seen[j.ID] {
			seen[j.ID] = true
			queuedAt[j.ID] = len(jobs)
			jobs = append(jobs, j)
		}
	}
	queued := maps.Clone(seen)
	for _, j := range obs.History {
		if !keep(j) {
			continue
		}
		if i, ok := queuedAt[j.ID]; ok {
			jobs[i].fillRuntimeFields(&j)
			delete(queuedAt, j.ID) // from the first of sacct's records of the job only
		}
		if !seen[j.ID] {
			seen[j.ID] = true
			jobs = append(jobs, j)
		}
	}
	slices.SortStableFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(a.Raw, b.Raw); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return jobs, queued
}

// userIndex gives each user name a dense index, in name order.
func userIndex(jobs []Job) map[string]int32 {
	var names []string
	for _, j := range jobs {
		names = append(names, j.User)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	idx := make(map[string]int32, len(names))
	for i, n := range names {
		idx[n] = int32(i)
	}
	return idx
}

// predict sets predRun with sim.PredictRunTimes: the ended jobs that ran
// are the history (run time End − Start, at most the limit).
func predict(lj []liveJob, now int64) {
	sj := make([]sim.Job, len(lj))
	for i := range lj {
		j := &lj[i]
		sj[i] = sim.Job{User: j.user, Nodes: j.nodes, Submit: j.Submit, LimitSec: j.limit, After: sim.NoJob}
		if j.State == JobEnded && j.Start > 0 && j.End >= j.Start && j.End <= now {
			sj[i].TraceStart = j.Start
			sj[i].RunSec = min(j.End-j.Start, j.limit)
		}
	}
	sim.PredictRunTimes(sj, sim.RunTimeHistory{})
	for i := range lj {
		lj[i].predRun = sj[i].PredRunSec
	}
}

// usage returns each user's fair-share usage at now: node-seconds run in
// the last span, each decayed by 2^(−age/halfLife) (the integral of the
// simulator's decay over the job's run).
func usage(lj []liveJob, users int, now, span, halfLife int64) []float64 {
	u := make([]float64, users)
	if halfLife <= 0 {
		return u
	}
	hl := float64(halfLife)
	for i := range lj {
		j := &lj[i]
		if j.Start <= 0 || j.Start >= now {
			continue
		}
		a, b := max(j.Start, now-span), now
		if j.End > 0 {
			b = min(j.End, now)
		}
		if b <= a {
			continue
		}
		u[j.user] += float64(j.nodes) * hl / math.Ln2 * (math.Exp2(-float64(now-b)/hl) - math.Exp2(-float64(now-a)/hl))
	}
	return u
}
