package analyze

import "github.com/mirage-hpc/mirage/trace"

// The groupings of the waits tables, in output order.
var waitGroupings = []string{"all", "nodes", "limit", "partition", "qos", "month"}

const (
	groupAll = iota
	groupNodes
	groupLimit
	groupPartition
	groupQOS
	groupMonth
)

// waits accumulates wait histograms per group of every grouping.
type waits struct {
	groups [6]map[string]*hist
}

func newWaits() *waits {
	w := &waits{}
	for i := range w.groups {
		w.groups[i] = map[string]*hist{}
	}
	return w
}

func (w *waits) hist(by int, name string) *hist {
	h := w.groups[by][name]
	if h == nil {
		h = &hist{}
		w.groups[by][name] = h
	}
	return h
}

// add counts job j's wait, if it has one (it ran and has Submit and
// Start), under its groups; month is its submission month.
func (w *waits) add(j *trace.Job, month string) {
	d, ok := j.Wait()
	if !ok || j.NeverStarted() {
		return
	}
	sec := int64(d.Seconds())
	rt, hasRun := j.RunTime()
	longer := hasRun && d > rt
	for by, name := range [6]string{"all", nodeClass(j.NNodes), limitClass(j.TimelimitSec), j.Partition, j.QOS, month} {
		h := w.hist(by, name)
		h.add(sec)
		if longer {
			h.longer++
		}
	}
}

// tables returns waits.parquet and wait_cdf.parquet's rows; groupings in
// skip are left out (their column is absent from the trace).
func (w *waits) tables(skip map[int]bool) ([]WaitRow, []CDFRow) {
	var rows []WaitRow
	var cdf []CDFRow
	for by, m := range w.groups {
		if skip[by] {
			continue
		}
		var names []string
		switch by {
		case groupNodes:
			for _, c := range nodeClasses {
				if m[c.label] != nil {
					names = append(names, c.label)
				}
			}
		case groupLimit:
			for _, c := range limitClasses {
				if m[c] != nil {
					names = append(names, c)
				}
			}
		default:
			names = sortedKeys(m)
		}
		for _, name := range names {
			h := m[name]
			r := WaitRow{GroupBy: waitGroupings[by], Group: name, Jobs: h.n,
				P50Sec: h.quantile(0.5), P90Sec: h.quantile(0.9), P99Sec: h.quantile(0.99)}
			if h.n > 0 {
				r.MeanSec = h.sum / float64(h.n)
				r.ShareLongerThanRun = float64(h.longer) / float64(h.n)
			}
			rows = append(rows, r)
			for _, p := range cdfPoints {
				cdf = append(cdf, CDFRow{GroupBy: r.GroupBy, Group: name, WaitSec: p, Share: h.shareAtMost(p)})
				if h.shareAtMost(p) >= 1 {
					break
				}
			}
		}
	}
	return rows, cdf
}
