package sim

import (
	"cmp"
	"slices"
	"sort"
)

// busyIndex answers "how many nodes were idle in the trace at time t?"
// counting only the jobs added so far (InferOptions.RequireIdle): a
// Fenwick tree of busy-node deltas over the trace's distinct start and
// end times.
type busyIndex struct {
	jobs  []job
	end   func(int) int64
	times []int64 // distinct start and end times, ascending
	tree  []int64 // Fenwick tree (1-based) of deltas at times
	nodes int64   // the partition size idle nodes are counted against
}

func newBusyIndex(jobs []job, end func(int) int64, nodes int) *busyIndex {
	b := &busyIndex{jobs: jobs, end: end}
	var ds []busyDelta
	for i := range jobs {
		if b.runs(i) {
			b.times = append(b.times, jobs[i].TraceStart, end(i))
			ds = append(ds, busyDelta{jobs[i].TraceStart, int(jobs[i].Nodes)}, busyDelta{end(i), -int(jobs[i].Nodes)})
		}
	}
	slices.Sort(b.times)
	b.times = slices.Compact(b.times)
	b.tree = make([]int64, len(b.times))
	b.nodes = int64(nodes)
	if nodes <= 0 {
		slices.SortFunc(ds, func(x, y busyDelta) int { return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.nodes, y.nodes)) })
		cur := 0
		for _, d := range ds {
			cur += d.nodes
			b.nodes = max(b.nodes, int64(cur))
		}
	}
	return b
}

// runs reports whether job i held nodes in the trace.
func (b *busyIndex) runs(i int) bool {
	j := &b.jobs[i]
	return j.TraceStart > 0 && b.end(i) > j.TraceStart
}

// add counts job i's nodes as busy from its trace start to its end.
func (b *busyIndex) add(i int32) {
	if !b.runs(int(i)) {
		return
	}
	n := int64(b.jobs[i].Nodes)
	b.addAt(b.jobs[i].TraceStart, n)
	b.addAt(b.end(int(i)), -n)
}

func (b *busyIndex) addAt(t, d int64) {
	k, _ := slices.BinarySearch(b.times, t)
	for x := k + 1; x <= len(b.tree); x += x & -x {
		b.tree[x-1] += d
	}
}

// idleAt returns the partition size minus the nodes busy at second t
// (jobs started at or before t and ending after it), over the jobs added.
func (b *busyIndex) idleAt(t int64) int64 {
	r := sort.Search(len(b.times), func(k int) bool { return b.times[k] > t })
	busy := int64(0)
	for x := r; x > 0; x -= x & -x {
		busy += b.tree[x-1]
	}
	return b.nodes - busy
}
