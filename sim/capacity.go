package sim

import (
	"cmp"
	"slices"
)

// DefaultCapacityBucketSec is the bucket of InferCapacity when
// CapacityOptions.BucketSec is 0: one day.
const DefaultCapacityBucketSec = 86400

// CapacityOptions controls InferCapacity. The zero value is valid.
type CapacityOptions struct {
	// Nodes caps the capacity and is its value outside the trace's span
	// and wherever the trace gives no reason to lower it (the simulated
	// partition size, Config.Nodes). 0 means the most nodes ever busy in
	// the trace, plus Headroom.
	Nodes int `yaml:"-" json:"-"`
	// BucketSec is the bucket width in seconds; buckets are aligned to
	// multiples of it since the Unix epoch (UTC midnights for a day).
	// 0 means DefaultCapacityBucketSec.
	BucketSec int64 `yaml:"bucket_sec" json:"bucket_sec"`
	// Smooth widens each bucket's maximum over Smooth buckets on either
	// side (a running maximum), so a quiet bucket between busy ones keeps
	// its neighbours' capacity. 0 means no smoothing.
	Smooth int `yaml:"smooth" json:"smooth"`
	// Headroom is added to each bucket's maximum (before the cap): nodes
	// that may have been up but never all busy at once.
	Headroom int `yaml:"headroom" json:"headroom"`
	// MinPendingSec, when > 0, lowers the capacity only in buckets during
	// which some job was pending in the trace that waited at least
	// MinPendingSec from its eligibility (max(Submit, Eligible)) to its
	// start and has no predecessor (After): buckets where demand was
	// unmet. Elsewhere the capacity stays at Nodes. With Causal, a bucket
	// counts only if such a job had already waited MinPendingSec at the
	// bucket's start and had neither started nor been cancelled by then.
	MinPendingSec int64 `yaml:"min_pending_sec" json:"min_pending_sec"`
	// Causal makes the capacity at time t depend only on the trace up to
	// t, so that nothing a simulation sees at t (features, EstimatedStart)
	// comes from the future: in bucket b the capacity at t is the
	// previous bucket's peak of busy nodes (with Smooth, the peak of the
	// Smooth+1 previous buckets), raised to the running maximum of the
	// busy nodes in b up to t at the very second a new level is first
	// busy; plus Headroom, capped at Nodes. The steps are then not only at
	// bucket boundaries. When false, a bucket's capacity is its own peak
	// from its first second on (and Smooth looks both ways), which looks
	// up to a bucket ahead. Either way, the capacity returns to Nodes
	// after the bucket of the trace's last start or end.
	Causal bool `yaml:"causal" json:"causal"`
}

// InferCapacity guesses a capacity timeline from the trace's real schedule:
// for each bucket from the first submission on, the most nodes busy at
// once in the trace (jobs that ran, from TraceStart for RunSec seconds),
// plus Headroom, widened by Smooth buckets, capped at Nodes, and kept at
// Nodes where MinPendingSec finds no unmet demand. Buckets before the
// first start are therefore 0 (plus Headroom): jobs submitted before the
// partition ran anything wait for it, as they did. The trace's own schedule is therefore always
// feasible under the result (with Headroom >= 0), except where Nodes is
// below what the trace used.
//
// The steps are sorted by At, start at bucket boundaries, and are emitted
// only where the capacity changes, starting from Nodes: the first step is
// at the first bucket whose capacity differs from Nodes, and the last one
// returns to Nodes after the last bucket with a job running. It returns
// nil for a trace in which no job ran, or when nothing differs from
// Nodes. With Causal the capacity follows only the past (see
// CapacityOptions.Causal) and steps may fall inside buckets. Every step
// is Unannounced: the backfill planner does not see it coming. It takes
// O(n log n) time for n jobs (independent of the trace's span; with
// Causal, O(n (log n + Smooth))), is deterministic, and does not change
// jobs.
func InferCapacity(jobs []Job, opts CapacityOptions) []CapacityStep {
	if opts.BucketSec <= 0 {
		opts.BucketSec = DefaultCapacityBucketSec
	}
	opts.Smooth = max(opts.Smooth, 0)
	if opts.Causal {
		return causalCapacity(jobs, opts)
	}
	runs := busyRuns(jobs, opts.BucketSec)
	if len(runs) == 0 {
		return nil
	}
	top := 0
	for i := range runs {
		runs[i].v += opts.Headroom
		top = max(top, runs[i].v)
	}
	if opts.Nodes <= 0 {
		opts.Nodes = top
	}
	runs = dilateRuns(runs, int64(opts.Smooth))
	for i := range runs {
		runs[i].v = max(0, min(runs[i].v, opts.Nodes))
	}
	if opts.MinPendingSec > 0 {
		runs = keepStarved(runs, starvedBuckets(jobs, opts.MinPendingSec, opts.BucketSec), opts.Nodes)
	}
	return runSteps(runs, opts.Nodes, opts.BucketSec)
}

// bucketRun gives buckets from..to (indices, inclusive) the value v.
type bucketRun struct {
	from, to int64
	v        int
}

// busyRuns returns, for every bucket from the first submission to the
// last trace end, the most nodes busy at once in it, as merged runs.
func busyRuns(jobs []Job, bucket int64) []bucketRun {
	ds, first := busyDeltas(jobs)
	if len(ds) == 0 {
		return nil
	}
	var runs []bucketRun
	if b := floorDiv(first, bucket); b < floorDiv(ds[0].at, bucket) {
		runs = append(runs, bucketRun{b, floorDiv(ds[0].at, bucket) - 1, 0}) // submitted, nothing ran yet
	}
	add := func(from, to int64, v int) {
		if n := len(runs); n > 0 && runs[n-1].v == v && runs[n-1].to+1 == from {
			runs[n-1].to = to
			return
		}
		runs = append(runs, bucketRun{from, to, v})
	}
	busy, peak := 0, 0
	cur := floorDiv(ds[0].at, bucket)
	for g := 0; g < len(ds); {
		at := ds[g].at
		if b := floorDiv(at, bucket); b != cur {
			add(cur, cur, peak)
			if b > cur+1 {
				add(cur+1, b-1, busy) // nothing starts or ends in between
			}
			cur, peak = b, busy
			if at == b*bucket {
				peak = 0 // busy at the bucket's first second is after these events
			}
		}
		// All changes at one second, then the peak: a node freed and
		// taken at once is not counted twice.
		for ; g < len(ds) && ds[g].at == at; g++ {
			busy += ds[g].nodes
		}
		peak = max(peak, busy)
	}
	if ds[len(ds)-1].at > cur*bucket {
		add(cur, cur, peak) // not a bucket whose first second is the last end
	}
	return runs
}

// busyDelta is a change of the trace's busy nodes at a time.
type busyDelta struct {
	at    int64 // Unix seconds
	nodes int
}

// busyDeltas returns the starts (+nodes) and ends (-nodes) of the jobs
// that ran in the trace, sorted by time, and the first submission; no
// deltas when none ran.
func busyDeltas(jobs []Job) ([]busyDelta, int64) {
	ds := make([]busyDelta, 0, 2*len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if j.TraceStart <= 0 || j.RunSec <= 0 {
			continue
		}
		ds = append(ds, busyDelta{j.TraceStart, int(j.Nodes)}, busyDelta{j.TraceStart + j.RunSec, -int(j.Nodes)})
	}
	if len(ds) == 0 {
		return nil, 0
	}
	first := jobs[0].Submit
	for i := range jobs {
		first = min(first, jobs[i].Submit)
	}
	slices.SortFunc(ds, func(a, b busyDelta) int { return cmp.Compare(a.at, b.at) })
	return ds, first
}

// dilateRuns returns the running maximum of runs over k buckets on either
// side: bucket x gets the largest value of the buckets x-k..x+k that runs
// cover. Runs must be sorted, disjoint and contiguous; the result covers
// k more buckets on either side.
func dilateRuns(runs []bucketRun, k int64) []bucketRun {
	if k == 0 {
		return runs
	}
	// The result can change only where a run enters the window
	// (x = from-k) or leaves it (x = to+k+1); both sequences are sorted.
	points := make([]int64, 0, 2*len(runs))
	for _, r := range runs {
		points = append(points, r.from-k, r.to+k+1)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	out := make([]bucketRun, 0, len(points))
	var dq []int // indices of runs in the window, values decreasing
	in, outIdx := 0, 0
	for i, x := range points[:len(points)-1] {
		for in < len(runs) && runs[in].from-k <= x {
			for len(dq) > 0 && runs[dq[len(dq)-1]].v <= runs[in].v {
				dq = dq[:len(dq)-1]
			}
			dq = append(dq, in)
			in++
		}
		for outIdx < len(runs) && runs[outIdx].to+k < x {
			if len(dq) > 0 && dq[0] == outIdx {
				dq = dq[1:]
			}
			outIdx++
		}
		if len(dq) == 0 { // cannot happen for contiguous runs
			continue
		}
		v, end := runs[dq[0]].v, points[i+1]-1
		if n := len(out); n > 0 && out[n-1].v == v && out[n-1].to+1 == x {
			out[n-1].to = end
			continue
		}
		out = append(out, bucketRun{x, end, v})
	}
	return out
}

// starvedBuckets returns the sorted, disjoint bucket ranges during which
// some job pending in the trace went on to wait at least minPending
// seconds (jobs with a predecessor excepted).
func starvedBuckets(jobs []Job, minPending, bucket int64) []bucketRun {
	var rs []bucketRun
	for i := range jobs {
		j := &jobs[i]
		if j.TraceStart <= 0 || j.After != NoJob {
			continue
		}
		from := max(j.Submit, j.Eligible)
		if j.TraceStart-from < minPending {
			continue
		}
		rs = append(rs, bucketRun{from: floorDiv(from, bucket), to: floorDiv(j.TraceStart-1, bucket)})
	}
	return mergeRuns(rs)
}

// keepStarved returns runs with every bucket outside starved set to nodes.
func keepStarved(runs, starved []bucketRun, nodes int) []bucketRun {
	var out []bucketRun
	add := func(from, to int64, v int) {
		if from > to {
			return
		}
		if n := len(out); n > 0 && out[n-1].v == v && out[n-1].to+1 == from {
			out[n-1].to = to
			return
		}
		out = append(out, bucketRun{from, to, v})
	}
	s := 0
	for _, r := range runs {
		x := r.from
		for x <= r.to {
			for s < len(starved) && starved[s].to < x {
				s++
			}
			if s == len(starved) || starved[s].from > r.to {
				add(x, r.to, nodes)
				break
			}
			st := starved[s]
			add(x, st.from-1, nodes)
			lo, hi := max(x, st.from), min(r.to, st.to)
			add(lo, hi, r.v)
			x = hi + 1
		}
	}
	return out
}

// runSteps turns runs into capacity steps that start and end at nodes.
func runSteps(runs []bucketRun, nodes int, bucket int64) []CapacityStep {
	var steps []CapacityStep
	cur := nodes
	for i, r := range runs {
		if i > 0 && runs[i-1].to+1 < r.from && cur != nodes { // a gap: back to nodes
			steps = append(steps, CapacityStep{At: (runs[i-1].to + 1) * bucket, Nodes: nodes, Unannounced: true})
			cur = nodes
		}
		if r.v != cur {
			steps = append(steps, CapacityStep{At: r.from * bucket, Nodes: r.v, Unannounced: true})
			cur = r.v
		}
	}
	if cur != nodes {
		steps = append(steps, CapacityStep{At: (runs[len(runs)-1].to + 1) * bucket, Nodes: nodes, Unannounced: true})
	}
	return steps
}

// mergeRuns sorts bucket ranges by start and merges the overlapping or
// adjacent ones, in place; values are ignored.
func mergeRuns(rs []bucketRun) []bucketRun {
	slices.SortFunc(rs, func(a, b bucketRun) int { return cmp.Compare(a.from, b.from) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.from <= out[n-1].to+1 {
			out[n-1].to = max(out[n-1].to, r.to)
			continue
		}
		out = append(out, r)
	}
	return out
}
