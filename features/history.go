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

// history keeps the history series sampled on a regular grid.
type history struct {
	times  []int64
	values [][]float64 // values[k] is sample k's series, in historySeries order
}

func (h *history) record(at int64, qs []float64, recentMean float64) {
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
func (h *history) summarise(dst []float64, now int64, cur []float64) {
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
