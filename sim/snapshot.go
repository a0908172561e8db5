package sim

import "slices"

// PendingJob is a queued job in a Snapshot.
type PendingJob struct {
	ID       JobID   `json:"id"`
	User     int32   `json:"user"`
	Nodes    int32   `json:"nodes"`
	LimitSec int64   `json:"limit_sec"`
	Submit   int64   `json:"submit"`   // Unix seconds
	Eligible int64   `json:"eligible"` // when it became eligible, Unix seconds
	Priority float64 `json:"priority"`
	// Held marks a held job (Config.HeldInSnapshot): submitted, waiting
	// on its predecessor or its Eligible time; its Eligible and Priority
	// are 0.
	Held bool `json:"held,omitempty"`
}

// RunningJob is a running job in a Snapshot.
type RunningJob struct {
	ID    JobID `json:"id"`
	User  int32 `json:"user"`
	Nodes int32 `json:"nodes"`
	// LimitSec is the limit it runs under (Sim.Limit: for a job with a
	// time-min, the one backfill granted).
	LimitSec int64 `json:"limit_sec"`
	Submit   int64 `json:"submit"` // Unix seconds
	Start    int64 `json:"start"`  // Unix seconds
}

// Snapshot is the queue as squeue would show it at Now: what a live
// provisioner can know. Jobs that will leave without running (cancelled
// while pending in the trace) are included, as squeue would show them;
// held jobs (waiting on a dependency or begin time) are not, unless
// Config.HeldInSnapshot lists them after the others.
type Snapshot struct {
	Now       int64        `json:"now"`
	Nodes     int          `json:"nodes"`    // partition size
	Capacity  int          `json:"capacity"` // usable nodes now
	FreeNodes int          `json:"free_nodes"`
	Pending   []PendingJob `json:"pending"` // by descending priority; then held jobs by submission, then ID
	Running   []RunningJob `json:"running"` // by start, then ID
}

// Snapshot returns the current queue.
func (s *Sim) Snapshot() Snapshot {
	snap := Snapshot{Now: s.now, Nodes: s.cfg.Nodes, Capacity: s.capacity, FreeNodes: s.free()}
	order := s.order()
	snap.Pending = make([]PendingJob, len(order))
	for i, id := range order {
		j := &s.jobs[id]
		snap.Pending[i] = PendingJob{ID: id, User: j.User, Nodes: j.Nodes, LimitSec: j.LimitSec,
			Submit: j.Submit, Eligible: s.st.get(id).elig, Priority: s.scratch.prio[id]}
	}
	if s.cfg.HeldInSnapshot {
		snap.Pending = s.appendHeld(snap.Pending)
	}
	snap.Running = make([]RunningJob, len(s.running))
	for i, id := range s.running {
		j := &s.jobs[id]
		start := s.st.get(id).start // runRel: at its limit, a time-min's granted one
		snap.Running[i] = RunningJob{ID: id, User: j.User, Nodes: j.Nodes, LimitSec: s.runRel[i].at - start, Submit: j.Submit, Start: start}
	}
	slices.SortFunc(snap.Running, func(a, b RunningJob) int {
		if c := cmpInt64(a.Start, b.Start); c != 0 {
			return c
		}
		return cmpInt64(int64(a.ID), int64(b.ID))
	})
	return snap
}

// appendHeld appends the held jobs to pending, by submission then ID. It
// visits every job: O(jobs).
func (s *Sim) appendHeld(pending []PendingJob) []PendingJob {
	n := len(pending)
	for id := range s.jobs {
		if s.st.get(JobID(id)).status != statusHeld {
			continue
		}
		j := &s.jobs[id]
		pending = append(pending, PendingJob{ID: JobID(id), User: j.User, Nodes: j.Nodes, LimitSec: j.LimitSec,
			Submit: j.Submit, Held: true})
	}
	slices.SortFunc(pending[n:], func(a, b PendingJob) int {
		if c := cmpInt64(a.Submit, b.Submit); c != 0 {
			return c
		}
		return cmpInt64(int64(a.ID), int64(b.ID))
	})
	return pending
}
