package analyze

import (
	"math"

	"github.com/mirage-hpc/mirage/trace"
)

// ratioBins is the number of bins of run time / limit: [k/100,
// (k+1)/100) for k < 100, and bin 100 for ratios >= 1.
const ratioBins = 101

// runLimit accumulates each user's histogram of run time / time limit.
type runLimit struct {
	index map[string]int
	users [][ratioBins]int64
}

func newRunLimit() *runLimit { return &runLimit{index: map[string]int{}} }

// add counts job j when it ran with a known run time and limit.
func (r *runLimit) add(j *trace.Job, user string) {
	rt, ok := j.RunTime()
	if !ok || j.NeverStarted() || j.TimelimitSec <= 0 {
		return
	}
	i, ok := r.index[user]
	if !ok {
		i = len(r.users)
		r.index[user] = i
		r.users = append(r.users, [ratioBins]int64{})
	}
	b := min(int(math.Floor(rt.Seconds()/float64(j.TimelimitSec)*100)), ratioBins-1)
	r.users[i][max(b, 0)]++
}

// table returns runtime_limit.parquet's rows: one per user class with
// jobs, then "all".
func (r *runLimit) table() []RunLimitRow {
	type agg struct {
		users int64
		bins  [ratioBins]int64
	}
	classes := map[string]*agg{}
	all := &agg{}
	for _, u := range r.users {
		var n int64
		for _, c := range u {
			n += c
		}
		a := classes[userClass(n)]
		if a == nil {
			a = &agg{}
			classes[userClass(n)] = a
		}
		for _, x := range []*agg{a, all} {
			x.users++
			for b, c := range u {
				x.bins[b] += c
			}
		}
	}
	var rows []RunLimitRow
	row := func(label string, a *agg) {
		h := hist{bins: a.bins[:]}
		for _, c := range a.bins {
			h.n += c
		}
		q := func(p float64) float64 { return h.quantile(p) / 100 }
		rw := RunLimitRow{UserClass: label, Users: a.users, Jobs: h.n,
			P10: q(0.1), P25: q(0.25), P50: q(0.5), P75: q(0.75), P90: q(0.9)}
		if h.n > 0 {
			var under int64
			for b := range 10 {
				under += a.bins[b]
			}
			rw.ShareAtLimit = float64(a.bins[ratioBins-1]) / float64(h.n)
			rw.ShareUnderTenth = float64(under) / float64(h.n)
		}
		rows = append(rows, rw)
	}
	for i := len(userClasses) - 1; i >= 0; i-- {
		if a := classes[userClasses[i].label]; a != nil {
			row(userClasses[i].label, a)
		}
	}
	if all.users > 0 {
		row("all", all)
	}
	return rows
}
