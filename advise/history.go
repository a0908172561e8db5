package advise

import (
	"cmp"
	"slices"
	"sort"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// starts are the observed starts by (start, raw ID), with prefix sums of
// their waits (Start − Submit, seconds), for the recent mean wait.
type starts struct {
	at  []int64
	sum []int64 // sum[k] = waits of the first k starts
}

func newStarts(lj []liveJob) *starts {
	idx := make([]int, 0, len(lj))
	for i := range lj {
		if lj[i].Start > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(lj[a].Start, lj[b].Start); c != 0 {
			return c
		}
		return cmp.Compare(lj[a].Raw, lj[b].Raw)
	})
	s := &starts{at: make([]int64, len(idx)), sum: make([]int64, len(idx)+1)}
	for k, i := range idx {
		s.at[k] = lj[i].Start
		s.sum[k+1] = s.sum[k] + lj[i].Start - lj[i].Submit
	}
	return s
}

// meanBefore returns the mean wait of the last n starts before t
// (strictly: a decision at t sees the queue before t's events) and how
// many it is over; 0 without any.
func (s *starts) meanBefore(t int64, n int) (float64, int) {
	k := sort.Search(len(s.at), func(i int) bool { return s.at[i] >= t })
	return s.mean(k, n)
}

// meanAt is meanBefore for the starts at or before t (a history sample
// is taken after everything at its time).
func (s *starts) meanAt(t int64, n int) (float64, int) {
	k := sort.Search(len(s.at), func(i int) bool { return s.at[i] > t })
	return s.mean(k, n)
}

func (s *starts) mean(k, n int) (float64, int) {
	c := min(k, n)
	if c == 0 {
		return 0, 0
	}
	return float64(s.sum[k]-s.sum[k-c]) / float64(c), c
}

// sampleHistory samples the queue on the grid of multiples of SampleSec
// from the last one at or before now − HistorySec to the last before now
// (Build's main timeline samples the same grid), each after everything at
// its time: pending = eligible ≤ t and not started (or left) by t,
// running = start ≤ t < end.
func sampleHistory(lj []liveJob, rec *starts, now int64, o *LiveOptions, cfg sim.Config) *features.History {
	h := &features.History{}
	from := floorMul(now-o.HistorySec, o.SampleSec)
	var snap sim.Snapshot
	for t := from; t < now; t += o.SampleSec {
		snap = sim.Snapshot{Now: t, Nodes: cfg.Nodes, Capacity: cfg.Nodes, Pending: snap.Pending[:0], Running: snap.Running[:0]}
		busy := 0
		for i := range lj {
			j := &lj[i]
			ended := j.End > 0 && j.End <= t
			switch {
			case j.Start > 0 && j.Start <= t && !ended:
				snap.Running = append(snap.Running, sim.RunningJob{User: j.user, Nodes: j.nodes, LimitSec: j.limit, Submit: j.Submit, Start: j.Start})
				busy += int(j.nodes)
			case j.State != JobHeld && j.elig <= t && j.Submit <= t && (j.Start == 0 || j.Start > t) && !ended:
				snap.Pending = append(snap.Pending, sim.PendingJob{User: j.user, Nodes: j.nodes, LimitSec: j.limit, Submit: j.Submit, Eligible: j.elig})
			}
		}
		snap.FreeNodes = snap.Capacity - busy
		mean, _ := rec.meanAt(t, o.RecentStarts)
		h.Record(&snap, mean)
	}
	return h
}

func floorMul(t, m int64) int64 {
	r := ((t % m) + m) % m
	return t - r
}
