package sim

import (
	"cmp"
	"math"
	"slices"
)

// Fidelity compares simulated with actual waits (Start - Submit) of the
// same jobs. Errors are in seconds.
type Fidelity struct {
	// Jobs is the number of jobs compared.
	Jobs int `json:"jobs"`
	// MAESec is the mean absolute error, mean(|simulated - actual|).
	MAESec float64 `json:"wait_mae_sec"`
	// MedianAbsErrSec is the median absolute error (the mean of the two
	// middle values for an even count).
	MedianAbsErrSec float64 `json:"wait_median_abs_err_sec"`
	// Spearman is the rank correlation of simulated and actual waits: the
	// Pearson correlation of their ranks, tied values taking the mean of
	// their ranks. It is 0 when it is undefined: fewer than two jobs, or
	// either side constant.
	Spearman float64 `json:"wait_spearman"`
	// Within2x is the share of the jobs that actually waited over a minute
	// whose simulated wait is within a factor of 2 of the actual one
	// (actual/2 <= simulated <= 2*actual); 0 when Within2xJobs is 0.
	Within2x float64 `json:"within_2x"`
	// Within2xJobs is the number of jobs Within2x is a share of: those
	// whose actual wait exceeds a minute.
	Within2xJobs int `json:"within_2x_jobs"`
	// PerMonth holds the same figures for each month, sorted by month;
	// nil when CompareWaits was given no months.
	PerMonth []MonthFidelity `json:"per_month,omitempty"`
}

// MonthFidelity is Fidelity for the jobs submitted in one month.
type MonthFidelity struct {
	// Month is "YYYY-MM" (or whatever label the caller gave).
	Month string `json:"month"`
	Fidelity
}

// CompareWaits returns the fidelity figures of simulated against actual
// waits in seconds; actual[i] and simulated[i] are the waits of job i, and
// months, when not nil, its month of submission ("YYYY-MM"), which adds
// PerMonth. The caller picks the jobs: usually those that started both in
// the trace and in the simulation, as CompareReplay does. It panics when
// the lengths differ.
// Empty input gives a zero Fidelity.
func CompareWaits(actual, simulated []int64, months []string) Fidelity {
	if len(actual) != len(simulated) || months != nil && len(months) != len(actual) {
		panic("sim: CompareWaits: slice lengths differ")
	}
	f := compareWaits(actual, simulated)
	if months == nil {
		return f
	}
	order := make([]int, len(months))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(months[a], months[b]) })
	var a, s []int64
	f.PerMonth = []MonthFidelity{}
	for g := 0; g < len(order); {
		a, s = a[:0], s[:0]
		h := g
		for ; h < len(order) && months[order[h]] == months[order[g]]; h++ {
			a = append(a, actual[order[h]])
			s = append(s, simulated[order[h]])
		}
		f.PerMonth = append(f.PerMonth, MonthFidelity{Month: months[order[g]], Fidelity: compareWaits(a, s)})
		g = h
	}
	return f
}

// TraceWait returns the job's wait in the trace, TraceStart - Submit in
// seconds, and whether it has one: false for a job that never started in
// the trace, one that ran from a start the trace did not record
// (trace.Job.StartUnknown; FromTrace gives both TraceStart 0), and one not
// from a trace. Fidelity compares only jobs with a trace wait.
func (j *Job) TraceWait() (int64, bool) {
	if j.TraceStart <= 0 {
		return 0, false
	}
	return j.TraceStart - j.Submit, true
}

// CompareReplay returns the fidelity of a replay of jobs (as FromTrace
// makes them), starts[i] being job i's simulated start in Unix seconds
// (negative when it never started). It compares, with CompareWaits, the
// jobs that have a trace wait (Job.TraceWait) and started in the
// simulation; jobs whose trace start is unknown are left out. month, when
// not nil, labels a submit time (Unix seconds) with its month ("YYYY-MM")
// and adds PerMonth. It panics when the lengths of jobs and starts differ.
func CompareReplay(jobs []Job, starts []int64, month func(submit int64) string) Fidelity {
	if len(jobs) != len(starts) {
		panic("sim: CompareReplay: slice lengths differ")
	}
	var actual, simulated []int64
	var months []string
	for i := range jobs {
		j := &jobs[i]
		wait, ok := j.TraceWait()
		if !ok || starts[i] < 0 {
			continue
		}
		actual = append(actual, wait)
		simulated = append(simulated, starts[i]-j.Submit)
		if month != nil {
			months = append(months, month(j.Submit))
		}
	}
	if month != nil && months == nil {
		months = []string{}
	}
	return CompareWaits(actual, simulated, months)
}

// compareWaits computes everything but PerMonth.
func compareWaits(actual, simulated []int64) Fidelity {
	n := len(actual)
	f := Fidelity{Jobs: n}
	if n == 0 {
		return f
	}
	errs := make([]int64, n)
	var sum float64
	within := 0
	for i, a := range actual {
		s := simulated[i]
		e := s - a
		if e < 0 {
			e = -e
		}
		errs[i] = e
		sum += float64(e)
		if a > 60 {
			f.Within2xJobs++
			if 2*s >= a && s <= 2*a {
				within++
			}
		}
	}
	f.MAESec = sum / float64(n)
	slices.Sort(errs)
	if n%2 == 1 {
		f.MedianAbsErrSec = float64(errs[n/2])
	} else {
		f.MedianAbsErrSec = (float64(errs[n/2-1]) + float64(errs[n/2])) / 2
	}
	if f.Within2xJobs > 0 {
		f.Within2x = float64(within) / float64(f.Within2xJobs)
	}
	f.Spearman = Spearman(actual, simulated)
	return f
}

// Spearman returns the rank correlation of x and y: the Pearson
// correlation of their ranks, where tied values share the mean of the
// ranks they span. It returns 0 when the correlation is undefined (fewer
// than two values, or all of x or all of y equal), and panics when the
// lengths differ.
func Spearman(x, y []int64) float64 {
	if len(x) != len(y) {
		panic("sim: Spearman: slice lengths differ")
	}
	if len(x) < 2 {
		return 0
	}
	rx, ry := averageRanks(x), averageRanks(y)
	mean := float64(len(x)+1) / 2 // the mean of any average ranks
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// averageRanks returns the 1-based ranks of v, ties sharing their mean rank.
func averageRanks(v []int64) []float64 {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for g := 0; g < len(order); {
		h := g
		for h < len(order) && v[order[h]] == v[order[g]] {
			h++
		}
		rank := float64(g+h+1) / 2 // mean of g+1 .. h
		for _, i := range order[g:h] {
			r[i] = rank
		}
		g = h
	}
	return r
}
