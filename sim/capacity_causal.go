package sim

import (
	"math"
)

// capPoint is a raw capacity (busy nodes, before Headroom and the cap)
// in force from At (Unix seconds) on.
type capPoint struct {
	at int64
	v  int
}

// causalCapacity is InferCapacity with opts.Causal (BucketSec and Smooth
// already defaulted): see CapacityOptions.Causal.
func causalCapacity(jobs []Job, opts CapacityOptions) []CapacityStep {
	ds, first := busyDeltas(jobs)
	if len(ds) == 0 {
		return nil
	}
	bs := opts.BucketSec
	b0 := min(floorDiv(first, bs), floorDiv(ds[0].at, bs))
	last := floorDiv(ds[len(ds)-1].at, bs)
	pts := causalPoints(ds, b0, last, bs, opts.Smooth)

	top := 0
	for i := range pts {
		pts[i].v += opts.Headroom
		top = max(top, pts[i].v)
	}
	nodes := opts.Nodes
	if nodes <= 0 {
		nodes = top
	}
	var starved []bucketRun
	if opts.MinPendingSec > 0 {
		starved = causalStarved(jobs, opts.MinPendingSec, bs, b0, last)
		pts = splitAt(pts, starved, bs)
	}
	var steps []CapacityStep
	cur, s := nodes, 0
	for _, p := range pts {
		v := max(0, min(p.v, nodes))
		if opts.MinPendingSec > 0 {
			b := floorDiv(p.at, bs)
			for s < len(starved) && starved[s].to < b {
				s++
			}
			if s == len(starved) || starved[s].from > b {
				v = nodes
			}
		}
		if v != cur {
			steps = append(steps, CapacityStep{At: p.at, Nodes: v, Unannounced: true})
			cur = v
		}
	}
	if cur != nodes {
		steps = append(steps, CapacityStep{At: (last + 1) * bs, Nodes: nodes, Unannounced: true})
	}
	return steps
}

// causalPoints returns the raw causal capacity over buckets b0..last as
// points sorted by time, one at every bucket start where it may change
// and one at each second a bucket's running maximum rises above it.
// Runs of buckets without deltas get points only while the look-back
// window still sees a bucket with deltas (at most smooth+2 buckets).
func causalPoints(ds []busyDelta, b0, last, bs int64, smooth int) []capPoint {
	var pts []capPoint
	peaks := make([]int, 0, smooth+1) // the last smooth+1 bucket peaks, oldest first
	push := func(p int) {
		if len(peaks) == smooth+1 {
			copy(peaks, peaks[1:])
			peaks = peaks[:smooth]
		}
		peaks = append(peaks, p)
	}
	base := func() int {
		m := 0
		for _, p := range peaks {
			m = max(m, p)
		}
		return m
	}
	busy, g := 0, 0
	for b := b0; b <= last; {
		at0 := b * bs
		// Busy at the bucket's first second is after that second's deltas.
		for ; g < len(ds) && ds[g].at == at0; g++ {
			busy += ds[g].nodes
		}
		cur := max(base(), busy)
		pts = append(pts, capPoint{at0, cur})
		peak := busy
		for g < len(ds) && ds[g].at < at0+bs {
			at := ds[g].at
			for ; g < len(ds) && ds[g].at == at; g++ {
				busy += ds[g].nodes
			}
			peak = max(peak, busy)
			if busy > cur {
				cur = busy
				pts = append(pts, capPoint{at, cur})
			}
		}
		push(peak)
		b++
		next := last + 1
		if g < len(ds) {
			next = floorDiv(ds[g].at, bs)
		}
		// Buckets without deltas: their peak is busy throughout. The
		// (smooth+2)th of them looks back at empty buckets only, and the
		// value stays at busy from there on.
		for k := 0; b < next && k <= smooth+1; k++ {
			pts = append(pts, capPoint{b * bs, max(base(), busy)})
			push(busy)
			b++
		}
		b = max(b, next)
	}
	return pts
}

// causalStarved returns the sorted, disjoint bucket ranges (within
// b0..last) at whose start some job without a predecessor had been
// eligible for at least minPending seconds and was still pending: not
// started (TraceStart) and not cancelled (Cancel) by then. A job that
// neither ran nor was cancelled counts as pending to the end.
func causalStarved(jobs []Job, minPending, bs, b0, last int64) []bucketRun {
	var rs []bucketRun
	for i := range jobs {
		j := &jobs[i]
		if j.After != NoJob {
			continue
		}
		until := int64(math.MaxInt64)
		switch {
		case j.TraceStart > 0:
			until = j.TraceStart
		case j.Cancel > 0:
			until = j.Cancel
		}
		known := max(j.Submit, j.Eligible) + minPending
		from := max(floorDiv(known+bs-1, bs), b0) // the first bucket starting at or after known
		to := last
		if until != math.MaxInt64 {
			to = min(to, floorDiv(until-1, bs)) // the last bucket starting before until
		}
		if from <= to {
			rs = append(rs, bucketRun{from: from, to: to})
		}
	}
	return mergeRuns(rs)
}

// splitAt returns pts with a point added at each boundary of the bucket
// ranges rs that has none, carrying the value in force there, so that
// every change of the starved condition falls on a point.
func splitAt(pts []capPoint, rs []bucketRun, bs int64) []capPoint {
	extra := make([]int64, 0, 2*len(rs))
	for _, r := range rs {
		extra = append(extra, r.from*bs, (r.to+1)*bs)
	}
	out := make([]capPoint, 0, len(pts)+len(extra))
	i := 0
	for _, x := range extra {
		for i < len(pts) && pts[i].at <= x {
			out = append(out, pts[i])
			i++
		}
		if n := len(out); n > 0 && out[n-1].at != x {
			out = append(out, capPoint{x, out[n-1].v})
		}
	}
	return append(out, pts[i:]...)
}
