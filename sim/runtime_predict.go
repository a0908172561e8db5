package sim

import (
	"cmp"
	"slices"
)

// RunTimeHistory configures PredictRunTimes.
type RunTimeHistory struct {
	// K is how many of the user's most recently ended jobs are averaged
	// (default 2, as in Tsafrir, Etsion and Feitelson 2007).
	K int
	// MinSec is the smallest prediction, seconds (default 60).
	MinSec int64
}

// WithDefaults fills zero fields.
func (o RunTimeHistory) WithDefaults() RunTimeHistory {
	if o.K <= 0 {
		o.K = 2
	}
	if o.MinSec <= 0 {
		o.MinSec = 60
	}
	return o
}

// PredictRunTimes sets every job's PredRunSec from what is known at its
// submission: the mean run-time-to-limit ratio of its user's K jobs that
// ended most recently at or before its Submit (ended in the trace:
// TraceStart + RunSec), times its own limit, within [MinSec, LimitSec].
// A job whose user has no ended job yet, or whose user is unknown, keeps
// PredRunSec 0 (plan with the limit). Only jobs that ran in the trace
// (TraceStart > 0, no Cancel) are history. It uses no job's outcome
// before that outcome is known, so predictions are causal.
func PredictRunTimes(jobs []Job, o RunTimeHistory) {
	o = o.WithDefaults()
	type ended struct {
		at    int64
		user  int32
		ratio float64
	}
	var hist []ended
	for i := range jobs {
		j := &jobs[i]
		if j.TraceStart > 0 && j.Cancel == 0 && j.User >= 0 && j.LimitSec > 0 {
			hist = append(hist, ended{at: j.TraceStart + j.RunSec, user: j.User, ratio: float64(j.RunSec) / float64(j.LimitSec)})
		}
	}
	slices.SortStableFunc(hist, func(a, b ended) int { return cmp.Compare(a.at, b.at) })
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(jobs[a].Submit, jobs[b].Submit) })
	users := int32(0)
	for i := range jobs {
		users = max(users, jobs[i].User+1)
	}
	recent := make([][]float64, users) // per user: the last K ratios, oldest first
	h := 0
	for _, i := range order {
		j := &jobs[i]
		for ; h < len(hist) && hist[h].at <= j.Submit; h++ {
			r := recent[hist[h].user]
			if len(r) == o.K {
				copy(r, r[1:])
				r = r[:o.K-1]
			}
			recent[hist[h].user] = append(r, hist[h].ratio)
		}
		j.PredRunSec = 0
		if j.User < 0 || len(recent[j.User]) == 0 {
			continue
		}
		r := recent[j.User]
		var sum float64
		for _, x := range r {
			sum += x
		}
		p := int64(sum / float64(len(r)) * float64(j.LimitSec))
		j.PredRunSec = min(max(p, o.MinSec), j.LimitSec)
	}
}
