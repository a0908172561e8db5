package features

import "github.com/mirage-hpc/mirage/sim"

// recentWaits is a sim.Recorder that keeps the waits (Start - Submit, in
// seconds) of the last n jobs that started, the artifact's "avg" signal.
type recentWaits struct {
	s     *sim.Sim // set after the simulation is built
	waits []int64  // ring buffer
	next  int
	full  bool
	sum   int64
}

func newRecentWaits(n int) *recentWaits { return &recentWaits{waits: make([]int64, max(n, 1))} }

// Started implements sim.Recorder.
func (r *recentWaits) Started(id sim.JobID, at int64) {
	w := at - r.s.Job(id).Submit
	r.sum += w - r.waits[r.next]
	r.waits[r.next] = w
	r.next++
	if r.next == len(r.waits) {
		r.next, r.full = 0, true
	}
}

// Finished implements sim.Recorder.
func (r *recentWaits) Finished(sim.JobID, int64) {}

// Left implements sim.Recorder.
func (r *recentWaits) Left(sim.JobID, int64) {}

// count returns how many waits the mean is over.
func (r *recentWaits) count() int {
	if r.full {
		return len(r.waits)
	}
	return r.next
}

// mean returns the mean wait in seconds, 0 before any start.
func (r *recentWaits) mean() float64 {
	n := r.count()
	if n == 0 {
		return 0
	}
	return float64(r.sum) / float64(n)
}

// History keeps the history series (pending jobs and nodes, running
// nodes, the oldest pending job's age, the recent mean wait) sampled on a
// regular grid, for the hist_* features. The zero value is empty. Build
// samples its main timeline every SampleSec (600 s) after everything at
// the sample time; the live path (package advise) samples the queue it
// reconstructs from sacct at the same grid times.
type History struct {
	times  []int64
	values [][]float64 // values[k] is sample k's series, in historySeries order
	qs     []float64   // scratch
}

// Record appends a sample of snap taken at snap.Now (Unix seconds, after
// the sample before it) with the recent mean wait recentMeanWaitSec
// (seconds) at that time. It computes only the queue statistics the
// history keeps (historyStats), each exactly as QueueStats does.
func (h *History) Record(snap *sim.Snapshot, recentMeanWaitSec float64) {
	if len(h.qs) != NumQueueStats {
		h.qs = make([]float64, NumQueueStats)
	}
	historyStats(h.qs, snap)
	h.record(snap.Now, h.qs, recentMeanWaitSec)
}

// historyStats writes into qs (NumQueueStats long) the statistics that
// historySeries reads, with QueueStats' arithmetic: counts and node sums
// as integers, and the oldest pending age (the 100th percentile, which
// percentiles takes as the largest value) as a maximum, without the sorts.
// Other entries are left as they are.
func historyStats(qs []float64, snap *sim.Snapshot) {
	var pendNodes, runNodes, maxAge int64
	for i := range snap.Pending {
		pendNodes += int64(snap.Pending[i].Nodes)
		if i == 0 || snap.Now-snap.Pending[i].Submit > maxAge {
			maxAge = snap.Now - snap.Pending[i].Submit
		}
	}
	for i := range snap.Running {
		runNodes += int64(snap.Running[i].Nodes)
	}
	qs[qsPendingJobs], qs[qsPendingNodes], qs[qsRunningNodes] = float64(len(snap.Pending)), float64(pendNodes), float64(runNodes)
	qs[qsPendingAge+4] = float64(maxAge)
}

// historyStatsCover checks that historyStats computes every statistic a
// history series reads.
var _ = func() bool {
	for _, s := range historySeries {
		switch s.qs {
		case -1, qsPendingJobs, qsPendingNodes, qsRunningNodes, qsPendingAge + 4:
		default:
			panic("features: historyStats does not compute queue statistic " + s.name)
		}
	}
	return true
}()

// Len returns the number of samples.
func (h *History) Len() int { return len(h.times) }

func (h *History) record(at int64, qs []float64, recentMean float64) {
	v := make([]float64, len(historySeries))
	for i, s := range historySeries {
		if s.qs < 0 {
			v[i] = recentMean
		} else {
			v[i] = qs[s.qs]
		}
	}
	h.times = append(h.times, at)
	h.values = append(h.values, v)
}

// summarise writes, for each history series, its mean over each span
// (samples in (now-span, now]) and its change over each span (cur minus
// the last sample at or before now-span, or the first sample if none is
// that old), into dst. cur holds the series' current values. Without
// samples in a span the mean is the current value; without any sample the
// change is 0.
func (h *History) summarise(dst []float64, now int64, cur []float64) {
	k := 0
	for i := range historySeries {
		for _, sp := range historySpans {
			sum, n := 0.0, 0
			for j := len(h.times) - 1; j >= 0 && h.times[j] > now-sp.sec; j-- {
				if h.times[j] <= now {
					sum += h.values[j][i]
					n++
				}
			}
			if n == 0 {
				dst[k] = cur[i]
			} else {
				dst[k] = sum / float64(n)
			}
			k++
		}
		for _, sp := range historySpans {
			dst[k] = 0
			if len(h.times) > 0 {
				j := len(h.times) - 1
				for j > 0 && h.times[j] > now-sp.sec {
					j--
				}
				dst[k] = cur[i] - h.values[j][i]
			}
			k++
		}
	}
}
