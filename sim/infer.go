package sim

import (
	"cmp"
	"slices"
	"sort"
)

// Defaults of InferOptions.
const (
	// DefaultGapSec is the longest time in seconds between a predecessor's
	// end and its successor's start: two minutes.
	DefaultGapSec = 120
	// DefaultMinWaitSec is the shortest trace wait in seconds of a job
	// inference considers: a minute.
	DefaultMinWaitSec = 60
)

// InferOptions controls InferDependencies. Zero fields mean their defaults.
type InferOptions struct {
	// GapSec: a job is taken to have waited on a predecessor that ended at
	// most GapSec seconds before it started; 0 means DefaultGapSec.
	GapSec int64 `yaml:"gap_sec" json:"gap_sec"`
	// MinWaitSec: only jobs whose trace wait (TraceStart - Submit) exceeds
	// it are considered; 0 means DefaultMinWaitSec.
	MinWaitSec int64 `yaml:"min_wait_sec" json:"min_wait_sec"`
	// RequireIdle keeps only the dependencies a queue without one could
	// not explain: those where, the second before the predecessor ended,
	// the trace had at least the job's nodes idle (Nodes minus the nodes
	// busy then), so the job was held while it could have run. Busy
	// nodes count only the jobs submitted no later than the job, so the
	// decision reads nothing submitted after it. Off by default.
	RequireIdle bool `yaml:"require_idle,omitempty" json:"require_idle,omitempty"`
	// Nodes is the partition size RequireIdle measures idle nodes
	// against; 0 means the most nodes busy at once in the trace (which
	// looks at the whole trace). Profile.FromTraceOptions sets it.
	Nodes int `yaml:"-" json:"-"`
}

// DefaultInferOptions returns the options the zero value stands for.
func DefaultInferOptions() InferOptions {
	return InferOptions{GapSec: DefaultGapSec, MinWaitSec: DefaultMinWaitSec}
}

// Inference reports what InferDependencies did. Waits are trace waits,
// TraceStart - Submit, of jobs that ran in the trace.
type Inference struct {
	// Jobs counts the jobs given an inferred predecessor (After).
	Jobs int `json:"jobs"`
	// Waited counts the jobs that ran and waited longer than MinWaitSec:
	// the population Jobs is drawn from.
	Waited int `json:"waited"`
	// WaitedOverHour counts the jobs of Jobs that waited over an hour.
	WaitedOverHour int `json:"waited_over_hour"`
	// Candidates counts all jobs that ran and waited over an hour.
	Candidates int `json:"candidates"`
	// NotIdle counts, with RequireIdle, the jobs the timing rule alone
	// would have given a predecessor but that had fewer idle nodes than
	// they needed when it ended (so a job may merely have taken its
	// nodes): left without one, and not in Jobs.
	NotIdle int `json:"not_idle,omitempty"`
}

// InferDependencies guesses, from the trace, which jobs waited on an
// earlier job of their user (a dependency, or a per-user limit), and sets
// their After to it, so the simulator holds them until it ends.
//
// Job J gets After = K when, in the trace, both ran (TraceStart > 0), they
// have the same User (>= 0), K was submitted no later than J (same-second
// submissions count: a chain is often submitted at once), K ran for a
// positive time, K ended at most GapSec seconds before J started, K ended
// after J was submitted (J was queued while K ran), and J waited longer
// than MinWaitSec. Of several such K, the one that ended last is chosen,
// and of those the lowest index. Jobs that already have After, or an
// Eligible time after Submit (the trace's own Eligible), are left alone.
// Since K starts strictly before J, inferred dependencies never form a
// cycle.
//
// K's end here is TraceStart + RunSec, capped at its limit; FromTrace with
// Options.Infer uses the trace's real End instead, which finds a few more
// predecessors that overran their limit by Slurm's kill grace.
//
// It takes O(n log n) time for n jobs and mutates only After.
func InferDependencies(jobs []Job, opts InferOptions) Inference {
	rows := make([]job, len(jobs))
	for i := range jobs {
		rows[i] = row(&jobs[i], nameRef{})
	}
	inf := inferDependencies(rows, nil, opts)
	for i := range jobs {
		jobs[i].After = rows[i].After
	}
	return inf
}

// inferDependencies is InferDependencies with each job's real trace end in
// ends (Unix seconds, parallel to jobs); nil ends means TraceStart+RunSec.
func inferDependencies(jobs []job, ends []int64, opts InferOptions) Inference {
	if opts.GapSec == 0 {
		opts.GapSec = DefaultGapSec
	}
	if opts.MinWaitSec == 0 {
		opts.MinWaitSec = DefaultMinWaitSec
	}
	end := func(i int) int64 {
		if ends != nil {
			return ends[i]
		}
		return jobs[i].TraceStart + jobs[i].RunSec
	}
	var inf Inference
	for i := range jobs {
		j := &jobs[i]
		if j.TraceStart > 0 && j.TraceStart-j.Submit > 3600 {
			inf.Candidates++
		}
	}
	idx := newPredIndex(jobs, end)
	var busy *busyIndex
	if opts.RequireIdle {
		busy = newBusyIndex(jobs, end, opts.Nodes)
	}

	// Sweep jobs in order of Submit. All jobs of a same-second group are
	// added before any of them is queried, so a job's predecessors are
	// exactly the ones added so far.
	order := make([]int32, len(jobs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(jobs[a].Submit, jobs[b].Submit) })
	for g := 0; g < len(order); {
		h := g
		for h < len(order) && jobs[order[h]].Submit == jobs[order[g]].Submit {
			idx.add(order[h], jobs[order[h]].User)
			if busy != nil {
				busy.add(order[h])
			}
			h++
		}
		for _, i := range order[g:h] {
			j := &jobs[i]
			wait := j.TraceStart - j.Submit
			if j.TraceStart <= 0 || wait <= opts.MinWaitSec {
				continue
			}
			inf.Waited++
			if j.User < 0 || j.After != NoJob || j.Eligible > j.Submit {
				continue
			}
			k, ok := idx.latestEndingBy(int(j.User), j.TraceStart)
			if !ok {
				continue
			}
			if e := end(k); e < j.TraceStart-opts.GapSec || e <= j.Submit {
				continue
			}
			if busy != nil && busy.idleAt(end(k)-1) < int64(j.Nodes) {
				inf.NotIdle++
				continue
			}
			j.After = JobID(k)
			inf.Jobs++
			if wait > 3600 {
				inf.WaitedOverHour++
			}
		}
		g = h
	}
	return inf
}

// predIndex answers "of the jobs of user u added so far, which ended last
// by time t?" in O(log n). Each user's possible predecessors (jobs that
// ran for a positive time) are sorted by (end, index); a Fenwick tree over
// those positions keeps the highest added position of each prefix.
type predIndex struct {
	off  []int32 // user u's entries are [off[u], off[u+1])
	end  []int64 // end time of each entry, ascending within a user
	job  []int32 // job index of each entry
	pos  []int32 // job index -> its entry's 1-based position within its user; 0 for none
	tree []int32 // per-user Fenwick trees (1-based, max of added positions), same layout as end
}

func newPredIndex(jobs []job, end func(int) int64) *predIndex {
	users := 0
	for i := range jobs {
		users = max(users, int(jobs[i].User)+1)
	}
	p := &predIndex{off: make([]int32, users+1), pos: make([]int32, len(jobs))}
	pred := func(i int) bool {
		j := &jobs[i]
		return j.User >= 0 && j.TraceStart > 0 && end(i) > j.TraceStart
	}
	for i := range jobs {
		if pred(i) {
			p.off[jobs[i].User+1]++
		}
	}
	for u := range users {
		p.off[u+1] += p.off[u]
	}
	n := p.off[users]
	p.end, p.job, p.tree = make([]int64, n), make([]int32, n), make([]int32, n)
	fill := slices.Clone(p.off[:users])
	for i := range jobs {
		if pred(i) {
			u := jobs[i].User
			p.job[fill[u]] = int32(i)
			fill[u]++
		}
	}
	for u := range users {
		lo, hi := p.off[u], p.off[u+1]
		seg := p.job[lo:hi]
		slices.SortFunc(seg, func(a, b int32) int {
			return cmp.Or(cmp.Compare(end(int(a)), end(int(b))), cmp.Compare(b, a))
		})
		for k, i := range seg {
			p.end[lo+int32(k)] = end(int(i))
			p.pos[i] = int32(k) + 1
		}
	}
	return p
}

// add makes job i of user u available as a predecessor (a no-op for jobs
// that cannot be one).
func (p *predIndex) add(i int32, u int32) {
	k := p.pos[i]
	if k == 0 {
		return
	}
	lo, n := p.off[u], p.off[u+1]-p.off[u]
	for x := k; x <= n; x += x & -x {
		p.tree[lo+x-1] = max(p.tree[lo+x-1], k)
	}
}

// latestEndingBy returns the added job of user u with the latest end <= t
// (the lowest index among equal ends), and false when there is none.
func (p *predIndex) latestEndingBy(u int, t int64) (int, bool) {
	if u+1 >= len(p.off) {
		return 0, false
	}
	lo, hi := int(p.off[u]), int(p.off[u+1])
	r := sort.Search(hi-lo, func(k int) bool { return p.end[lo+k] > t }) // entries 1..r end by t
	best := int32(0)
	for x := r; x > 0; x -= x & -x {
		best = max(best, p.tree[lo+x-1])
	}
	if best == 0 {
		return 0, false
	}
	return int(p.job[lo+int(best)-1]), true
}
