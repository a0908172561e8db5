package features

import (
	"cmp"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// WideRecentSec is how far back the wide_started_wait_* columns look:
// running jobs that started in the last 24 hours.
const WideRecentSec = 24 * 3600

// The wide columns (Options.Wide, Protocol.Wide, features build --wide):
// what predicts a long wait for a job of Q's shape, computed from the
// queue at the decision time only (sim.Snapshot: what squeue shows), so
// a live queue gives them as the simulator does. A job is wide when it
// asks for at least Q's nodes; held jobs are not counted. The base
// schema already has the backfill plan's earliest start for Q
// (q_est_start_delay_sec, capped at the backfill window) and the pending
// node-seconds ahead of Q by priority (ahead_node_sec). They come after
// Names' columns (and before ModelEstimateName) and only with Wide, so
// samples built without it are unchanged.
var wideSchema = []Feature{
	// Pending wide jobs: how many, their node-seconds by time limit, and
	// the oldest one's age (Now − submission; 0 when none).
	{"wide_pending_jobs", "jobs"},
	{"wide_pending_node_sec", "node-s"},
	{"wide_pending_age_max_sec", "s"},
	// Waits (start − submission) of the running wide jobs that started
	// in the last WideRecentSec: their mean and largest (0 when none).
	{"wide_started_wait_mean_sec", "s"},
	{"wide_started_wait_max_sec", "s"},
	// The earliest time Q's shape fits on nodes other than P's by the
	// running jobs' limits alone (free nodes now plus those of the jobs
	// ending by then, the queue ignored, not capped by the backfill
	// window), minus P's expected end; when they never free enough, the
	// last running job's end.
	{"q_fit_running_minus_p_end_sec", "s"},
}

// NumWide is the number of wide columns.
var NumWide = len(wideSchema)

// WideSchema returns the wide columns with their units (a copy).
func WideSchema() []Feature { return slices.Clone(wideSchema) }

// WideNames returns the wide columns' names, in order.
func WideNames() []string {
	n := make([]string, len(wideSchema))
	for i, f := range wideSchema {
		n[i] = f.Name
	}
	return n
}

// Wide writes the wide columns at s.Now() (the decision time; s is only
// read) for a chain whose predecessor P (job pid of s, p as submitted)
// is followed by Q (q: its Nodes are read) into dst, NumWide values.
func Wide(dst []float64, s *sim.Sim, pid sim.JobID, p, q sim.Job) {
	if len(dst) != NumWide {
		panic("features: Wide: dst length mismatch")
	}
	snap := s.Snapshot()
	wideColumns(dst, &snap, pid, expectedPEnd(s, pid, p, snap.Now), q.Nodes)
}

// wideColumns is Wide on a snapshot, with P's expected end pEnd.
func wideColumns(dst []float64, snap *sim.Snapshot, pid sim.JobID, pEnd int64, qNodes int32) {
	now := snap.Now
	var jobs, nodeSec, age int64
	for _, j := range snap.Pending {
		if j.Held || j.Nodes < qNodes {
			continue
		}
		jobs++
		nodeSec += int64(j.Nodes) * j.LimitSec
		age = max(age, now-j.Submit)
	}
	var n, sum, most int64
	type end struct {
		at    int64
		nodes int64
	}
	ends := make([]end, 0, len(snap.Running))
	for _, r := range snap.Running {
		if r.ID == pid {
			continue
		}
		ends = append(ends, end{r.Start + r.LimitSec, int64(r.Nodes)})
		if r.Nodes >= qNodes && r.Start > now-WideRecentSec {
			w := r.Start - r.Submit
			n++
			sum += w
			most = max(most, w)
		}
	}
	mean := 0.0
	if n > 0 {
		mean = float64(sum) / float64(n)
	}
	slices.SortFunc(ends, func(a, b end) int { return cmp.Compare(a.at, b.at) })
	fit, free := now, int64(snap.FreeNodes)
	if free < int64(qNodes) {
		for _, e := range ends {
			fit, free = max(e.at, now), free+e.nodes
			if free >= int64(qNodes) {
				break
			}
		}
	}
	dst[0], dst[1], dst[2] = float64(jobs), float64(nodeSec), float64(age)
	dst[3], dst[4] = mean, float64(most)
	dst[5] = float64(fit - pEnd)
}

// HasWide reports whether a model's feature columns fs hold the wide
// columns: Names', then WideNames'.
func HasWide(fs []Feature) bool {
	if len(fs) < numFeats+NumWide {
		return false
	}
	for i, f := range wideSchema {
		if fs[numFeats+i].Name != f.Name {
			return false
		}
	}
	return true
}
