package features

import (
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// QueueStats writes the queue statistics of snap into dst (NumQueueStats
// values, in the order of Schema's first NumQueueStats names) and returns
// it; a nil or short dst is replaced by a new slice. Times are seconds:
// a pending job's age is Now - Submit, a running job's wait Start - Submit
// and its elapsed time Now - Start. Percentiles use linear interpolation
// between order statistics (numpy's default); an empty list gives zeros.
func QueueStats(dst []float64, snap *sim.Snapshot) []float64 {
	var buf []float64
	return queueStats(dst, snap, &buf)
}

// queueStats is QueueStats with a reusable scratch buffer.
func queueStats(dst []float64, snap *sim.Snapshot, buf *[]float64) []float64 {
	if len(dst) < NumQueueStats {
		dst = make([]float64, NumQueueStats)
	}
	dst = dst[:NumQueueStats]
	now := snap.Now
	pend, run := snap.Pending, snap.Running
	var nodes int64
	for i := range pend {
		nodes += int64(pend[i].Nodes)
	}
	dst[qsPendingJobs], dst[qsPendingNodes] = float64(len(pend)), float64(nodes)
	b := (*buf)[:0]
	for i := range pend {
		b = append(b, float64(pend[i].LimitSec))
	}
	percentiles(dst[qsPendingLimit:qsPendingLimit+5], b)
	b = b[:0]
	for i := range pend {
		b = append(b, float64(now-pend[i].Submit))
	}
	percentiles(dst[qsPendingAge:qsPendingAge+5], b)
	nodes = 0
	for i := range run {
		nodes += int64(run[i].Nodes)
	}
	dst[qsRunningJobs], dst[qsRunningNodes] = float64(len(run)), float64(nodes)
	b = b[:0]
	for i := range run {
		b = append(b, float64(run[i].LimitSec))
	}
	percentiles(dst[qsRunningLimit:qsRunningLimit+5], b)
	b = b[:0]
	for i := range run {
		b = append(b, float64(run[i].Start-run[i].Submit))
	}
	percentiles(dst[qsRunningWait:qsRunningWait+5], b)
	b = b[:0]
	for i := range run {
		b = append(b, float64(now-run[i].Start))
	}
	percentiles(dst[qsRunningElapsed:qsRunningElapsed+5], b)
	dst[qsFreeNodes], dst[qsCapacityNodes] = float64(snap.FreeNodes), float64(snap.Capacity)
	*buf = b
	return dst
}

// percentiles writes the Percentiles of x into dst (len(Percentiles)),
// sorting x in place: for quantile q the value at rank h = q·(n-1) is
// x[floor h] + (h - floor h)·(x[floor h + 1] - x[floor h]). An empty x
// gives zeros.
func percentiles(dst, x []float64) {
	if len(dst) != len(Percentiles) {
		panic("features: percentiles: dst length mismatch")
	}
	if len(x) == 0 {
		clear(dst)
		return
	}
	slices.Sort(x)
	n := len(x)
	for i, p := range Percentiles {
		h := p / 100 * float64(n-1)
		lo := int(h)
		if lo >= n-1 {
			dst[i] = x[n-1]
			continue
		}
		dst[i] = x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
	}
}
