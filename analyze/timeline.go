package analyze

import (
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// maxDays bounds the timeline (about 95 years); time beyond it is not
// counted.
const maxDays = 35_000

// minutesPerDay is the length of a day's chunk of the timeline.
const minutesPerDay = 1440

// dayBins is one UTC day of the timeline's difference arrays, per minute.
type dayBins struct {
	busy, pJobs, pNodes [minutesPerDay]int32
	pWork               [minutesPerDay]int64 // node-seconds of time limit
}

// timeline accumulates, per minute, the busy nodes and the pending jobs,
// nodes and requested node-seconds as difference arrays: a job adds +v
// at the minute it enters a state and -v at the minute it leaves it, so
// each job costs O(1) and memory is linear in the trace's span (one
// chunk of 1,440 minutes per day, allocated when first touched). A job
// counts in the minutes [floor(from/60), floor(to/60)).
type timeline struct {
	base    int64 // Unix minute of index 0 (a UTC midnight); -1 until the first job
	days    []*dayBins
	skipped int64 // jobs outside [base, base+maxDays days)
}

func newTimeline() *timeline { return &timeline{base: -1} }

// bins returns the chunk of minute index i (from base), allocating it.
func (t *timeline) bins(i int64) *dayBins {
	d := int(i / minutesPerDay)
	for d >= len(t.days) {
		t.days = append(t.days, nil)
	}
	if t.days[d] == nil {
		t.days[d] = &dayBins{}
	}
	return t.days[d]
}

// span adds v over the minutes of [from, to) Unix seconds to the array
// that field selects; false when the span is outside the timeline.
func (t *timeline) span(field int, from, to, v int64) bool {
	a, b := from/60-t.base, to/60-t.base
	if a < 0 || b >= maxDays*minutesPerDay {
		return false
	}
	if b <= a {
		return true
	}
	for _, x := range [2]struct{ i, v int64 }{{a, v}, {b, -v}} {
		d, m := t.bins(x.i), x.i%minutesPerDay
		switch field {
		case fieldBusy:
			d.busy[m] += int32(x.v)
		case fieldJobs:
			d.pJobs[m] += int32(x.v)
		case fieldNodes:
			d.pNodes[m] += int32(x.v)
		default:
			d.pWork[m] += x.v
		}
	}
	return true
}

// The arrays of timeline.span.
const (
	fieldBusy = iota
	fieldJobs
	fieldNodes
	fieldWork
)

// pending adds a job of nodes and work (node-seconds) pending over [from, to).
func (t *timeline) pending(from, to, nodes, work int64) bool {
	return t.span(fieldJobs, from, to, 1) && t.span(fieldNodes, from, to, nodes) && t.span(fieldWork, from, to, work)
}

// add counts job j: busy from Start to End, pending from Submit to
// Start (or to End for a job that never started).
func (t *timeline) add(j *trace.Job) {
	if j.Submit.IsZero() {
		return
	}
	sub := j.Submit.Unix()
	if t.base < 0 {
		t.base = sub / 60 / minutesPerDay * minutesPerDay
	}
	nodes := int64(max(j.NNodes, 1))
	work := int64(0)
	if j.TimelimitSec > 0 {
		work = nodes * j.TimelimitSec
	} else if rt, ok := j.RunTime(); ok {
		work = nodes * int64(rt.Seconds())
	}
	ok := true
	switch {
	case j.StartUnknown:
		return
	case j.NeverStarted():
		if j.End.IsZero() {
			return
		}
		ok = t.pending(sub, j.End.Unix(), nodes, work)
	default:
		st := j.Start.Unix()
		ok = t.pending(sub, st, nodes, work)
		if !j.End.IsZero() {
			ok = ok && t.span(fieldBusy, st, j.End.Unix(), nodes)
		}
	}
	if !ok {
		t.skipped++
	}
}

// minute is the state of the cluster in one minute.
type minute struct{ busy, jobs, nodes, work int64 }

// hours returns the utilisation and queue tables, one row per UTC hour
// from the first submission's day to the last day touched. nodes > 0 is
// the capacity; otherwise each UTC day's capacity is the most nodes busy
// at once within smooth days on either side. It consumes the timeline.
func (t *timeline) hours(nodes, smooth int) ([]UtilRow, []QueueRow) {
	if t.base < 0 || len(t.days) == 0 {
		return nil, nil
	}
	// Prefix sums, day by day, into hourly aggregates; the day's peak
	// busy nodes for the capacity.
	nh := len(t.days) * 24
	util := make([]UtilRow, nh)
	queue := make([]QueueRow, nh)
	peak := make([]int64, len(t.days))
	var run minute
	for d, b := range t.days {
		for h := range 24 {
			var sum minute
			var hpeak int64
			for m := h * 60; m < (h+1)*60; m++ {
				if b != nil {
					run.busy += int64(b.busy[m])
					run.jobs += int64(b.pJobs[m])
					run.nodes += int64(b.pNodes[m])
					run.work += b.pWork[m]
				}
				sum.busy += run.busy
				sum.jobs += run.jobs
				sum.nodes += run.nodes
				sum.work += run.work
				hpeak = max(hpeak, run.busy)
			}
			i := d*24 + h
			ms := (t.base + int64(i)*60) * 60 * 1000
			util[i] = UtilRow{HourMs: ms, BusyNodesMean: float64(sum.busy) / 60, BusyNodesMax: hpeak}
			queue[i] = QueueRow{HourMs: ms, PendingJobsMean: float64(sum.jobs) / 60, PendingNodesMean: float64(sum.nodes) / 60,
				PendingNodeHoursMean: float64(sum.work) / 60 / 3600}
			peak[d] = max(peak[d], hpeak)
		}
		t.days[d] = nil // consumed
	}
	for d := range peak {
		c := int64(nodes)
		if nodes <= 0 {
			c = 0
			for k := max(0, d-smooth); k <= min(len(peak)-1, d+smooth); k++ {
				c = max(c, peak[k])
			}
		}
		for h := d * 24; h < (d+1)*24; h++ {
			util[h].CapacityNodes = c
			if c > 0 {
				util[h].Utilisation = util[h].BusyNodesMean / float64(c)
				queue[h].BacklogFullMachineHrs = queue[h].PendingNodeHoursMean / float64(c)
			}
		}
	}
	return trimHours(util, queue)
}

// trimHours drops the hours before the first and after the last hour
// with anything busy or pending.
func trimHours(util []UtilRow, queue []QueueRow) ([]UtilRow, []QueueRow) {
	active := func(i int) bool { return util[i].BusyNodesMax > 0 || queue[i].PendingJobsMean > 0 }
	lo, hi := 0, len(util)
	for lo < hi && !active(lo) {
		lo++
	}
	for hi > lo && !active(hi-1) {
		hi--
	}
	return util[lo:hi], queue[lo:hi]
}

// profiles returns the hour-of-day and day-of-week means of util and
// queue (same length) in loc.
func profiles(util []UtilRow, queue []QueueRow, loc *time.Location) []ProfileRow {
	var hod [24]struct{ n, busy, u, pj float64 }
	var dow [7]struct{ n, busy, u, pj float64 }
	for i, u := range util {
		t := time.UnixMilli(u.HourMs).In(loc)
		for _, a := range []*struct{ n, busy, u, pj float64 }{&hod[t.Hour()], &dow[t.Weekday()]} {
			a.n++
			a.busy += u.BusyNodesMean
			a.u += u.Utilisation
			a.pj += queue[i].PendingJobsMean
		}
	}
	var rows []ProfileRow
	add := func(name string, i int, a struct{ n, busy, u, pj float64 }) {
		r := ProfileRow{Profile: name, Index: int32(i)}
		if a.n > 0 {
			r.BusyNodesMean, r.UtilisationMean, r.PendingJobsMean = a.busy/a.n, a.u/a.n, a.pj/a.n
		}
		rows = append(rows, r)
	}
	for i, a := range hod {
		add("hour_of_day", i, a)
	}
	for i, a := range dow {
		add("day_of_week", i, a)
	}
	return rows
}
