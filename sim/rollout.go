package sim

import (
	"context"
	"fmt"
	"slices"
)

// RunOverride replaces one job's run time inside a rollout (Sim.Rollout).
type RunOverride struct {
	ID JobID
	// RunSec is the job's run time in the rollout, seconds; it is clamped
	// to [0, LimitSec] (after the minute rounding of MinuteRounding
	// configurations, as Job.RunSec is).
	RunSec int64
}

// LiveJob is a job a live provisioner sees at Now (Sim.Live): submitted
// and not ended.
type LiveJob struct {
	ID JobID
	// Running is true for a running job, which started at Start (Unix
	// seconds); Start is 0 otherwise (pending, or held for its begin time
	// or its predecessor).
	Running bool
	Start   int64
}

// Live appends to dst every job submitted and not ended at Now: running,
// pending and held ones, by ID. Trace jobs not yet arrived are not
// included, nor jobs that left or ended. dst may be nil.
func (s *Sim) Live(dst []LiveJob) []LiveJob {
	dst = dst[:0]
	for _, id := range s.running {
		dst = append(dst, LiveJob{ID: id, Running: true, Start: s.st.get(id).start})
	}
	for _, id := range s.pending {
		dst = append(dst, LiveJob{ID: id})
	}
	// Held jobs: those waiting for a begin time have an eligibility event;
	// those waiting for a predecessor hang off a live (or held) job.
	for i := range s.events {
		e := &s.events[i]
		if e.kind == eventJobEligible && s.st.get(e.job).status == statusHeld {
			dst = append(dst, LiveJob{ID: e.job})
		}
	}
	for k := 0; k < len(dst) && len(s.dependents) > 0; k++ {
		for _, d := range s.dependents[dst[k].ID] {
			if s.st.get(d).status == statusHeld {
				dst = append(dst, LiveJob{ID: d})
			}
		}
	}
	slices.SortFunc(dst, func(a, b LiveJob) int { return cmpInt64(int64(a.ID), int64(b.ID)) })
	return slices.CompactFunc(dst, func(a, b LiveJob) bool { return a.ID == b.ID })
}

// Rollout returns a clone of s for a look-ahead from Now that knows only
// what a live provisioner knows at Now, reporting to rec (nil: nothing):
//
//   - trace arrivals not yet processed (submitted at or after Now: a
//     Sim left by RunBefore(t) has not processed t's) are dropped; jobs
//     added by Submit, and held jobs, stay;
//   - unannounced capacity steps not yet applied are dropped (the
//     capacity in force now stays; announced steps still apply);
//   - each job of over runs for its RunSec instead of Job.RunSec: a
//     running job's end is moved to its start plus RunSec (at least Now),
//     and a job that starts later runs RunSec.
//
// The job table stays shared read-only: over is kept by the clone (sorted
// in place by ID), so the caller must not change it afterwards. s itself
// is not changed. A job given twice in over takes one of its values.
func (s *Sim) Rollout(rec Recorder, over []RunOverride) *Sim {
	c := s.Clone(rec)
	c.next = len(c.arrivals)
	if c.capIdx < len(c.cfg.Capacity) {
		var keep []CapacityStep
		for _, st := range c.cfg.Capacity[c.capIdx:] {
			if !st.Unannounced {
				keep = append(keep, st)
			}
		}
		c.cfg.Capacity, c.capIdx = keep, 0
	}
	for i := range over {
		o := &over[i]
		o.RunSec = min(max(o.RunSec, 0), c.jobs[o.ID].LimitSec)
	}
	slices.SortFunc(over, func(a, b RunOverride) int { return cmpInt64(int64(a.ID), int64(b.ID)) })
	c.over = over
	if len(over) == 0 {
		return c
	}
	moved := false
	for i := range c.events {
		e := &c.events[i]
		if e.kind != eventJobEnd {
			continue
		}
		if r, ok := c.overRun(e.job); ok {
			e.at = max(c.st.get(e.job).start+r, c.now)
			moved = true
		}
	}
	if moved {
		c.events.init()
	}
	return c
}

// overRun returns id's overridden run time, if any.
func (s *Sim) overRun(id JobID) (int64, bool) {
	i, ok := slices.BinarySearchFunc(s.over, id, func(o RunOverride, id JobID) int { return cmpInt64(int64(o.ID), int64(id)) })
	if !ok {
		return 0, false
	}
	return s.over[i].RunSec, true
}

// runSec returns the run time a job starting now runs: its override in a
// rollout, else Job.RunSec.
func (s *Sim) runSec(id JobID) int64 {
	if len(s.over) > 0 {
		if r, ok := s.overRun(id); ok {
			return r
		}
	}
	return s.jobs[id].RunSec
}

// init restores the heap order after arbitrary changes of its events.
func (h eventHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h eventHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// RunUntilStartedBy runs until job id starts, but processes nothing after
// deadline (Unix seconds). It returns the start and true, or false when id
// has not started at or before deadline; ErrNeverStarts when it left the
// queue or nothing is left to happen.
func (s *Sim) RunUntilStartedBy(ctx context.Context, id JobID, deadline int64) (int64, bool, error) {
	for n := 0; ; n++ {
		if t, ok := s.Started(id); ok {
			return t, true, nil
		}
		if st := s.st.get(id).status; st == statusLeft {
			return 0, false, fmt.Errorf("job %s: %w: it left the queue", s.names.get(s.jobs[id].name), ErrNeverStarts)
		}
		at, ok := s.nextTime()
		if !ok {
			return 0, false, fmt.Errorf("job %s: %w: no events left", s.names.get(s.jobs[id].name), ErrNeverStarts)
		}
		if at > deadline {
			return 0, false, nil
		}
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		s.step(at)
	}
}

// EstimatedStartWith is EstimatedStartPredicted with the run times
// predSec[id] (seconds; 0, or an ID beyond its length: plan with the
// limit) in place of Job.PredRunSec, for predictions other than the job
// table's (a learned run-time model's medians). predSec is only read.
func (s *Sim) EstimatedStartWith(j Job, predSec []int64) (int64, bool) {
	saved := s.predSec
	s.predSec = predSec
	defer func() { s.predSec = saved }()
	s.usePredSec = true
	defer func() { s.usePredSec = false }()
	return s.estimatedStart(j, true)
}

// predRun returns the predicted run time the planner uses for id with
// pred: Job.PredRunSec, or predSec's under EstimatedStartWith (0: none).
func (s *Sim) predRun(id JobID) int64 {
	if s.usePredSec {
		if int(id) < len(s.predSec) {
			return s.predSec[id]
		}
		return 0
	}
	return s.jobs[id].PredRunSec
}

// SubmitBatch adds external jobs as Submit does, each at max(Submit,
// Now()), growing the job table once for all of them (Submit copies it
// per call, which a rollout adding many arrivals cannot afford). The jobs
// must not depend on others (After = NoJob). It returns the first job's
// ID; the others follow in order.
func (s *Sim) SubmitBatch(js []Job) (JobID, error) {
	first := JobID(len(s.jobs))
	table := make([]job, len(s.jobs), len(s.jobs)+len(js))
	copy(table, s.jobs)
	total := 0
	for i := range js {
		j := row(&js[i], nameRef{})
		total += len(js[i].Name)
		if err := s.check(&j); err != nil {
			return NoJob, fmt.Errorf("submit %s: %w", js[i].Name, err)
		}
		if j.After != NoJob {
			return NoJob, fmt.Errorf("submit %s: %w: SubmitBatch takes no dependencies", js[i].Name, ErrInfeasibleJob)
		}
		s.normalise(&j)
		j.Submit = max(j.Submit, s.now)
		table = append(table, j)
	}
	// The names once all jobs are known good, in blocks after the
	// table's (whose slice is cap-limited: a clone's stays as it was).
	names := &nameBuilder{t: s.names, size: min(max(total, 1), nameBlock)}
	for i := range js {
		table[int(first)+i].name = names.add(js[i].Name)
	}
	s.jobs, s.names = table[:len(table):len(table)], names.table()
	for i := range js {
		id := first + JobID(i)
		j := &s.jobs[id]
		s.st.append(jobState{})
		if int(j.User) >= s.users {
			n := int(j.User) + 1
			s.userJobs = append(s.userJobs, make([]int32, n-s.users)...)
			s.userNodes = append(s.userNodes, make([]int32, n-s.users)...)
			s.busyPos = append(s.busyPos, slices.Repeat([]int32{-1}, n-s.users)...)
			s.usage = append(s.usage, make([]float64, n-s.users)...)
			s.users = n
		}
		s.push(j.Submit, eventJobSubmit, id)
	}
	return first, nil
}
