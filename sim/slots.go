package sim

// slotPlan is the backfill plan on a fixed grid: slot k holds the nodes
// free from now + k·res to now + (k+1)·res, for the slots before the end
// of the backfill window. Every time the planner uses is on that grid
// (releases are rounded up to it, reservations last whole slots), so it
// plans exactly as profile does, on a flat array: a start is found in one
// pass over the slots and a reservation touches only its own slots, with
// no insertions.
//
// A plan only loses nodes during a pass, so a shape's earliest start
// never moves back. A job that fits nowhere leaves the plan unchanged,
// and any later job at least as wide and at least as long fits nowhere
// either: failed remembers those shapes and earliest answers them
// without a scan. A job that fits starts the next search for its shape
// where the last one found a start (hints): in a deep queue many jobs
// share a few shapes, and each no longer rereads the slots the last one
// ruled out.
type slotPlan struct {
	now, res int64
	free     []int   // per slot
	failed   []shape // shapes that fit nowhere, none dominating another
	zero     int     // the first slot with no node free (len(free) if none)
	// hints is a small hash table of the shapes searched in the pass of
	// generation gen (older entries are empty) and where each last fit,
	// allocated on the first pass (a clone that never plans, or plans
	// with steps, does not carry it).
	hints *[256]shapeHint
	gen   uint32
}

// shapeHint is a hint: a shape (nodes, slots), and the slot where it last
// fit in the pass of generation gen.
type shapeHint struct {
	nodes, slots, from int32
	gen                uint32
}

// forgetHints empties the hint table for a new pass.
func (p *slotPlan) forgetHints() {
	if p.hints == nil {
		p.hints = new([256]shapeHint)
	}
	if p.gen++; p.gen == 0 { // wrapped: entries of generation 0 would look current
		*p.hints, p.gen = [len(p.hints)]shapeHint{}, 1
	}
}

// hintProbes bounds the search of the hint table: a shape not found in
// that many entries has no hint (and gets none when they are all taken).
const hintProbes = 4

// hint returns the slot where shape s last fit in this pass (0: none),
// and the table entry to record the next fit in (nil when full).
func (p *slotPlan) hint(s shape) (int, *shapeHint) {
	n, d := int32(s.nodes), int32(s.slots) // both fit: nodes of a cluster, slots below maxPlanSlots
	h := uint32(n)*0x9e3779b1 ^ uint32(d)*0x85ebca77
	for i := range uint32(hintProbes) {
		e := &p.hints[(h>>24+i)%uint32(len(p.hints))]
		if e.gen != p.gen {
			*e = shapeHint{nodes: n, slots: d, gen: p.gen}
			return 0, e
		}
		if e.nodes == n && e.slots == d {
			return int(e.from), e
		}
	}
	return 0, nil
}

// shape is a job's nodes and length in slots.
type shape struct{ nodes, slots int }

// maxPlanSlots bounds the grid: a window of more slots (a tiny
// resolution) is planned with profile instead.
const maxPlanSlots = 1 << 14

func (p *slotPlan) earliest(nodes int, dur int64) (int64, bool) {
	d := int(min(ceilDiv(dur, p.res), int64(len(p.free))))
	for _, f := range p.failed {
		if nodes >= f.nodes && d >= f.slots {
			return 0, false
		}
	}
	k0, h := p.hint(shape{nodes, d}) // no earlier slot can fit the shape any more
	if k, ok := firstFit(p.free[k0:], nodes, d); ok {
		if h != nil {
			h.from = int32(k0 + k)
		}
		return p.now + int64(k0+k)*p.res, true
	}
	p.fail(shape{nodes, d})
	return 0, false
}

// firstFit returns the first slot k from which free has at least nodes
// in each of the d slots from k on (or in each slot from k to the end,
// when fewer remain), and false if there is none. It checks a candidate
// span from its last slot backwards: a slot short of nodes rules out
// every start up to it, so the next candidate starts after it and only
// its slots beyond those already checked are read. Long spans therefore
// read a fraction of the slots; each slot is read at most once.
func firstFit(free []int, nodes, d int) (int, bool) {
	n := len(free)
	k, good := 0, 0 // free[k:good] are known to have enough nodes
	for k < n {
		end := min(k+d, n)
		j := end - 1
		for j >= good && free[j] >= nodes {
			j--
		}
		if j < good {
			return k, true
		}
		k, good = j+1, end
	}
	return 0, false
}

// fail remembers a shape that fits nowhere, dropping those it dominates.
func (p *slotPlan) fail(s shape) {
	k := 0
	for _, f := range p.failed {
		if !(f.nodes >= s.nodes && f.slots >= s.slots) {
			p.failed[k] = f
			k++
		}
	}
	p.failed = append(p.failed[:k], s)
}

func (p *slotPlan) reserve(nodes int, at, dur int64) {
	k := int((at - p.now) / p.res)
	end := min(k+int(min(ceilDiv(dur, p.res), int64(len(p.free)))), len(p.free))
	for i := k; i < end; i++ {
		p.free[i] -= nodes
		if p.free[i] < 1 && i < p.zero {
			p.zero = i
		}
	}
}

func (p *slotPlan) blockedAt() (int64, bool) {
	return p.now + int64(p.zero)*p.res, p.zero < len(p.free)
}

func (p *slotPlan) freeNow() int {
	if len(p.free) == 0 {
		return 0
	}
	return p.free[0]
}
