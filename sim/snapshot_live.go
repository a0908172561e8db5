package sim

import (
	"fmt"
	"slices"
)

// Queue is a live cluster's queue at one time, for FromQueue: what squeue
// shows, plus the fair-share usage a site's accounting implies.
type Queue struct {
	// Now is the queue's time, Unix seconds.
	Now int64
	// Capacity is the number of usable nodes now; 0 means Config.Nodes.
	Capacity int
	// Jobs are the running and pending jobs (held jobs, waiting on a
	// dependency or a begin time, are left out, as Snapshot leaves them
	// out); their IDs in the simulation are their indices. A job with
	// TraceStart in (0, Now] is running since TraceStart; any other is
	// pending, eligible since Eligible (Submit when 0). RunSec is the run
	// time to assume for a running job (0 means its limit: a live queue
	// does not know when a job will end); PredRunSec is its predicted run
	// time (0 = none; see PredictRunTimes). After and Cancel are ignored.
	Jobs []Job
	// Held marks, by index of Jobs, held jobs (squeue's PENDING with
	// reason Dependency or BeginTime, or a user or admin hold): they stay
	// held in the simulation, never queued (a live queue does not know
	// when they will be released), and Snapshot lists them with
	// Config.HeldInSnapshot, as the simulated world lists its own. nil
	// means none; a TraceStart is ignored for a held job.
	Held []bool
	// Usage is each user's decayed fair-share usage in node-seconds (any
	// common scale: only ratios matter), by user index; nil means none.
	Usage []float64
}

// FromQueue builds a simulation whose state at q.Now is q: the running
// jobs hold their nodes until their start plus RunSec (their limit by
// default), the pending jobs wait in the queue with their eligibility
// times, and nothing else is known (no arrivals, no capacity steps). Like
// a Sim that RunBefore(q.Now) left at the same queue, it has what happens
// at Now still to come: a job submitted at Now gets Now's passes. It is
// how a live cluster's queue meets the simulator's estimates
// (EstimatedStart, a fork's rank of a new job). cfg.Capacity is dropped
// (Capacity says the usable nodes). It returns an error wrapping
// ErrInfeasibleJob for a job that needs more nodes than cfg.Nodes or has
// no positive limit, or ErrConfig's errors.
func FromQueue(cfg Config, q Queue) (*Sim, error) {
	cfg.Capacity = nil
	jobs := slices.Clone(q.Jobs)
	for i := range jobs {
		j := &jobs[i]
		j.After, j.Cancel = NoJob, 0
		if j.RunSec <= 0 {
			j.RunSec = j.LimitSec
		}
		j.Submit = min(j.Submit, q.Now)
		if !isRunningAt(j, q.Now) || q.held(i) {
			j.TraceStart = 0
		}
	}
	s, err := New(cfg, jobs, nil)
	if err != nil {
		return nil, fmt.Errorf("queue at %d: %w", q.Now, err)
	}
	s.now, s.usageAt, s.usageT0 = q.Now, q.Now, q.Now
	s.nextBF = s.alignBF(q.Now)
	s.capacity = cfg.Nodes
	if q.Capacity > 0 {
		s.capacity = min(q.Capacity, cfg.Nodes)
	}
	s.next = len(s.arrivals) // every job has arrived
	for i := range s.jobs {
		s.see(s.jobs[i].User)
	}
	for _, id := range s.arrivals {
		j := &s.jobs[id]
		if j.TraceStart == 0 {
			continue
		}
		st := s.st.mut(id)
		st.status, st.start = statusRunning, j.TraceStart
		s.addRunning(id, j.LimitSec)
		s.push(max(j.TraceStart+j.RunSec, q.Now), eventJobEnd, id)
	}
	for _, id := range s.arrivals {
		j := &s.jobs[id]
		if j.TraceStart != 0 {
			continue
		}
		s.st.mut(id).status = statusHeld
		if q.held(int(id)) {
			continue
		}
		s.enqueue(id)
		st := s.st.mut(id)
		st.elig = j.Submit
		if j.Eligible > j.Submit {
			st.elig = min(j.Eligible, q.Now)
		}
	}
	for u := range min(len(q.Usage), len(s.usage)) {
		s.usage[u] = q.Usage[u]
		s.usageTotal += q.Usage[u]
	}
	return s, nil
}

// held reports whether q.Jobs[i] is held (Queue.Held).
func (q *Queue) held(i int) bool { return i < len(q.Held) && q.Held[i] }

func isRunningAt(j *Job, now int64) bool { return j.TraceStart > 0 && j.TraceStart <= now }

// EligibleAt returns when a job became eligible (entered the queue, after
// its begin time and dependency), and false if it never has.
func (s *Sim) EligibleAt(id JobID) (int64, bool) {
	st := s.st.get(id)
	switch st.status {
	case statusPending, statusRunning, statusDone:
		return st.elig, true
	case statusLeft:
		return st.elig, st.elig > 0
	}
	return 0, false
}
