package jobruntime

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/trace"
)

// AtLimitRatio is the ratio from which a job counts as having run to its
// limit (the last bin, a point mass at 1).
const AtLimitRatio = 0.995

// ratioOf returns min(run, limit)/limit of a job that ran with a known
// End and limit, and false for any other job.
func ratioOf(j *trace.Job) (ratio float64, runSec int64, ok bool) {
	if j.StartUnknown || j.Start.IsZero() || j.End.IsZero() || j.Submit.IsZero() {
		return 0, 0, false
	}
	if j.TimelimitSec == trace.NoLimit || j.TimelimitSec <= 0 {
		return 0, 0, false
	}
	run := max(int64(0), j.End.Unix()-j.Start.Unix())
	run = min(run, j.TimelimitSec)
	return float64(run) / float64(j.TimelimitSec), run, true
}

// Labelled reports whether job j has a label: it ran with a known Start,
// End, Submit and a finite limit (seconds > 0).
func Labelled(j *trace.Job) bool {
	_, _, ok := ratioOf(j)
	return ok
}

// History holds the causal per-job history columns of a job slice, in
// the slice's order. Every value of job i uses only jobs whose End is at
// or before job i's Submit (Unix seconds), so it is known at submission.
// Missing values (no history) are NaN.
type History struct {
	// UserPrevJobs counts the user's finished jobs (jobs).
	UserPrevJobs []float64
	// UserRatioMedian, UserRatioStd, UserRatioMean2 and UserRatioLast are
	// the median, population standard deviation, mean of the last two
	// and last of the ratios of the user's last K finished jobs (ratio).
	UserRatioMedian, UserRatioStd, UserRatioMean2, UserRatioLast []float64
	// UserAtLimitShare is the share of those K jobs that ran to their
	// limit (ratio >= AtLimitRatio).
	UserAtLimitShare []float64
	// UserRunMedianLog10 is the median of log10(1 + run seconds) of those jobs.
	UserRunMedianLog10 []float64
	// UserLimitMedianLog10 is the median of log10(limit seconds) of those jobs.
	UserLimitMedianLog10 []float64
	// NameRatioMedian is the median ratio of the user's last NameK
	// finished jobs with the same job name; NamePrevJobs counts the
	// user's finished jobs of that name (jobs).
	NameRatioMedian, NamePrevJobs []float64
	// SinceLastEndLog10 is log10(1 + seconds since the End of the user's
	// most recent finished job).
	SinceLastEndLog10 []float64
	// UserRunning counts the user's jobs running at the submission: Start
	// before it and End after it, or no End yet (jobs).
	UserRunning []float64
}

// HistoryOptions configure BuildHistory.
type HistoryOptions struct {
	// K is the number of a user's most recent finished jobs summarised
	// (default 10).
	K int `json:"k"`
	// NameK is the number of a user's most recent finished jobs of the
	// same name summarised (default 3).
	NameK int `json:"name_k"`
}

// WithDefaults fills zero fields.
func (o HistoryOptions) WithDefaults() HistoryOptions {
	if o.K <= 0 {
		o.K = 10
	}
	if o.NameK <= 0 {
		o.NameK = 3
	}
	return o
}

type ended struct {
	at    int64 // End, Unix seconds
	job   int32
	ratio float64
	run   int64
}

type userState struct {
	n      int
	ratios []float64 // the last K, oldest first
	runs   []float64 // log10(1+run s) of the same jobs
	limits []float64 // log10(limit s)
	lastAt int64
}

type nameState struct {
	n      int
	ratios []float64 // the last NameK, oldest first
}

// push appends v to a window of at most k values, dropping the oldest.
func push(w []float64, v float64, k int) []float64 {
	if len(w) == k {
		copy(w, w[1:])
		w = w[:k-1]
	}
	return append(w, v)
}

// BuildHistory computes the History of jobs. A job is history for job i
// when it ran with a known End and limit (Labelled), belongs to the same
// user (trace.Job.User, or the UID when the name is empty; jobs without
// either have no history) and ended at or before job i's Submit. Jobs are
// visited in order of Submit; a job without Submit gets NaN everywhere.
func BuildHistory(jobs []trace.Job, o HistoryOptions) *History {
	o = o.WithDefaults()
	n := len(jobs)
	h := newHistory(n)
	var ends []ended
	type span struct {
		at  int64
		job int32
	}
	var starts, stops []span // of jobs that started, for UserRunning
	for i := range jobs {
		j := &jobs[i]
		if r, run, ok := ratioOf(j); ok {
			ends = append(ends, ended{at: j.End.Unix(), job: int32(i), ratio: r, run: run})
		}
		// A job runs over [Start, End); one without End still runs.
		if !j.Start.IsZero() && !j.StartUnknown && (j.End.IsZero() || j.End.After(j.Start)) {
			starts = append(starts, span{j.Start.Unix(), int32(i)})
			if !j.End.IsZero() {
				stops = append(stops, span{j.End.Unix(), int32(i)})
			}
		}
	}
	byAt := func(a, b span) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.job, b.job)) }
	slices.SortFunc(ends, func(a, b ended) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.job, b.job)) })
	slices.SortFunc(starts, byAt)
	slices.SortFunc(stops, byAt)
	order := make([]int, 0, n)
	for i := range jobs {
		if !jobs[i].Submit.IsZero() {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return jobs[a].Submit.Compare(jobs[b].Submit) })

	users := map[string]*userState{}
	names := map[[2]string]*nameState{}
	running := map[string]int{}
	e, s, t := 0, 0, 0
	for _, i := range order {
		j := &jobs[i]
		sub := j.Submit.Unix()
		for ; e < len(ends) && ends[e].at <= sub; e++ {
			addEnded(jobs, ends[e], users, names, o)
		}
		for ; s < len(starts) && starts[s].at < sub; s++ {
			if u := userKey(&jobs[starts[s].job]); u != "" {
				running[u]++
			}
		}
		for ; t < len(stops) && stops[t].at <= sub; t++ { // End <= Submit implies Start < Submit
			if u := userKey(&jobs[stops[t].job]); u != "" {
				running[u]--
			}
		}
		h.fill(i, j, users, names, running)
	}
	return h
}

func addEnded(jobs []trace.Job, x ended, users map[string]*userState, names map[[2]string]*nameState, o HistoryOptions) {
	j := &jobs[x.job]
	u := userKey(j)
	if u == "" {
		return
	}
	us := users[u]
	if us == nil {
		us = &userState{}
		users[u] = us
	}
	us.n++
	us.ratios = push(us.ratios, x.ratio, o.K)
	us.runs = push(us.runs, math.Log10(1+float64(x.run)), o.K)
	us.limits = push(us.limits, math.Log10(float64(j.TimelimitSec)), o.K)
	us.lastAt = x.at
	key := [2]string{u, j.JobName}
	ns := names[key]
	if ns == nil {
		ns = &nameState{}
		names[key] = ns
	}
	ns.n++
	ns.ratios = push(ns.ratios, x.ratio, o.NameK)
}

// userKey is the user name, or "uid:N" without one, or "" when unknown.
func userKey(j *trace.Job) string {
	if j.User != "" {
		return j.User
	}
	if j.UID >= 0 {
		return "uid:" + formatInt(j.UID)
	}
	return ""
}

func newHistory(n int) *History {
	col := func() []float64 {
		c := make([]float64, n)
		for i := range c {
			c[i] = math.NaN()
		}
		return c
	}
	return &History{
		UserPrevJobs: col(), UserRatioMedian: col(), UserRatioStd: col(), UserRatioMean2: col(), UserRatioLast: col(),
		UserAtLimitShare: col(), UserRunMedianLog10: col(), UserLimitMedianLog10: col(),
		NameRatioMedian: col(), NamePrevJobs: col(), SinceLastEndLog10: col(), UserRunning: col(),
	}
}

func (h *History) fill(i int, j *trace.Job, users map[string]*userState, names map[[2]string]*nameState, running map[string]int) {
	u := userKey(j)
	if u == "" {
		return
	}
	h.UserRunning[i] = float64(running[u])
	us := users[u]
	h.UserPrevJobs[i], h.NamePrevJobs[i] = 0, 0
	if us == nil || us.n == 0 {
		return
	}
	h.UserPrevJobs[i] = float64(us.n)
	r := us.ratios
	h.UserRatioMedian[i] = median(r)
	h.UserRatioStd[i] = stddev(r)
	h.UserRatioLast[i] = r[len(r)-1]
	h.UserRatioMean2[i] = mean(r[max(0, len(r)-2):])
	at := 0
	for _, x := range r {
		if x >= AtLimitRatio {
			at++
		}
	}
	h.UserAtLimitShare[i] = float64(at) / float64(len(r))
	h.UserRunMedianLog10[i] = median(us.runs)
	h.UserLimitMedianLog10[i] = median(us.limits)
	h.SinceLastEndLog10[i] = math.Log10(1 + float64(max(0, j.Submit.Unix()-us.lastAt)))
	if ns := names[[2]string{u, j.JobName}]; ns != nil && ns.n > 0 {
		h.NamePrevJobs[i] = float64(ns.n)
		h.NameRatioMedian[i] = median(ns.ratios)
	}
}

// median returns the median of x (the mean of the middle two for an even
// length), NaN when empty. It does not change x.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func stddev(x []float64) float64 {
	m := mean(x)
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)))
}

// hourWeekday returns the hour (0-23) and weekday (0 = Sunday) of t in loc.
func hourWeekday(t time.Time, loc *time.Location) (float64, float64) {
	lt := t.In(loc)
	return float64(lt.Hour()), float64(lt.Weekday())
}
