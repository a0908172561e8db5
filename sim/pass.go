package sim

import (
	"math"
	"slices"
)

// passIter yields the indexed jobs in exactly order's order (ghosts
// excluded), with their priorities, for one scheduling pass. Jobs that
// start or leave during the pass are no longer yielded; none are added.
// Users are evaluated lazily, in the order of their bounds (bound.go).
type passIter struct {
	s     *Sim
	total float64
	heap  []int32   // evaluated user slots with a candidate, by their candidate
	cand  []entry   // per slot: its next job
	pos   []listPos // per slot: where that job's entry is
	last  entry     // the job next returned last
	prio  []float64 // per slot: that job's priority
	fs    []float64 // per slot: its fair-share input (fairShare), set when evaluated
	// nb caches nextBound's result (nbOK) until a user is evaluated.
	nbK   int
	nbV   float64
	nbOK  bool
	shift float64 // ageShift: what the uncapped bounds leave out
	drift float64 // boundDrift at the pass's time
	eb    entryBounder
	fr    [2]frontier // the visit of each bound heap
	// deferred holds the users visited at a bound above their fresh
	// bound (freshBound), by the latter (with the age shift): nextBound
	// returns deferredK for its top.
	deferred slotHeap
	// bandBase is band's part that does not depend on the key
	// (Sim.bandBase at the pass's time).
	bandBase float64
	// ref marks a reference pass (Sim.reference): sorted is the whole
	// queue by a full sort (order), at the next index in it.
	ref    bool
	sorted []JobID
	at     int
}

// listPos is an entry's place in its user's lists: lists do not change
// shape during a pass (a job that leaves only marks its entry dead).
type listPos struct {
	k uint8
	m int32
}

// byPriority returns an iterator over the pending jobs (ghosts
// excluded) in descending priority, then submission, then ID. It reuses
// scratch space: one iterator at a time.
func (s *Sim) byPriority() *passIter {
	x := s.index()
	s.prepareIndex()
	x.gen++
	s.scratch.gen++ // fair-share factors at this time
	it := &s.scratch.iter
	// cand and prio keep their length: a slot's values are set when it is
	// evaluated (advance), before they are read.
	*it = passIter{s: s, total: s.usageTotal, heap: it.heap[:0], cand: it.cand, pos: it.pos, prio: it.prio, fs: it.fs, fr: it.fr, deferred: slotHeap{nodes: it.deferred.nodes[:0]}}
	for len(it.cand) < len(x.users) {
		it.cand = append(it.cand, entry{id: NoJob})
		it.pos = append(it.pos, listPos{})
		it.prio = append(it.prio, 0)
		it.fs = append(it.fs, 0)
	}
	if s.cfg.Priority.FairShareWeight != 0 && len(s.scratch.fs) < s.users {
		s.scratch.fs = make([]float64, s.users+s.users/2+1)
		s.scratch.fsGen = make([]uint64, len(s.scratch.fs))
	}
	if !x.bounded {
		s.initBounds()
	}
	it.shift, it.drift, it.eb = s.ageShift(), s.boundDrift(), s.entryBounder()
	for k := range it.fr {
		it.fr[k].reset(&x.heaps[k])
	}
	it.bandBase = s.bandBase()
	if s.reference {
		it.ref, it.sorted = true, slices.DeleteFunc(slices.Clone(s.order()), s.ghost)
	}
	return it
}

// band is the key distance within which list order may differ from exact
// priority order by rounding: far above the rounding error of keys and
// priorities (about 1e-16 of their magnitude), far below any real gap. It
// is 1e-9·(1 + |key| + |AgeWeight·age| + |SizeWeight| + |AgeWeight| +
// |FairShareWeight|) for the age (now − base)/MaxAge, up to rounding: the
// key's share added to bandBase, which a pass computes once.
func (it *passIter) band(key float64) float64 { return it.bandBase + 1e-9*math.Abs(key) }

// bandBase returns the part of band that does not depend on the key, at
// the simulation's time: 1e-9·(1 + |AgeWeight·age| + |SizeWeight| +
// |AgeWeight| + |FairShareWeight|).
func (s *Sim) bandBase() float64 {
	pc := &s.cfg.Priority
	age := 0.0
	if pc.AgeWeight != 0 {
		age = math.Abs(pc.AgeWeight * float64(s.now-s.idx.base) / float64(pc.MaxAgeSec))
	}
	return 1e-9 * (1 + age + math.Abs(pc.SizeWeight) + math.Abs(pc.AgeWeight) + math.Abs(pc.FairShareWeight))
}

// next returns the next job and its priority, or false when none is left.
func (it *passIter) next() (JobID, float64, bool) {
	x := it.s.idx
	if it.ref {
		for it.at < len(it.sorted) {
			id := it.sorted[it.at]
			it.at++
			if it.s.st.get(id).status == statusPending { // not started or left since
				j := &it.s.jobs[id]
				it.last = entry{limit: j.planSec(), id: id, nodes: j.Nodes}
				return id, it.s.scratch.prio[id], true
			}
		}
		return NoJob, 0, false
	}
	for {
		it.evaluate()
		if len(it.heap) == 0 {
			return NoJob, 0, false
		}
		i := it.heap[0]
		e, p := it.cand[i], it.prio[i]
		id := e.id
		at := it.pos[i]
		le := &x.users[i].lists[at.k][at.m]
		le.taken = x.gen
		x.hint = hintPos{id: id, slot: i, k: at.k, m: at.m}
		if !it.advance(int(i)) {
			n := len(it.heap) - 1
			it.heap[0] = it.heap[n]
			it.heap = it.heap[:n]
		}
		if len(it.heap) > 0 {
			it.down(0)
		}
		if le.dead { // started or left since it became the candidate
			continue
		}
		it.last = e
		return id, p, true
	}
}

// job returns the nodes and planning limit (seconds: its time-min, or
// its time limit without one; job.planSec) of the job next returned last, from the index (a pass need not read the job).
func (it *passIter) job() (nodes int32, limitSec int64) { return it.last.nodes, it.last.limit }

// evaluate adds the users whose bound reaches the best candidate so far
// (all of them while there is none) to the heap at their exact
// candidates: after it, the heap's top is the next job in order.
func (it *passIter) evaluate() {
	x := it.s.idx
	for {
		next, nb := it.nextBound()
		if next < 0 || len(it.heap) > 0 && nb < it.prio[it.heap[0]] {
			return
		}
		var i int32
		if next == deferredK {
			i = it.deferred.pop()
		} else {
			n, _ := it.fr[next].top()
			i = n.slot
			it.fr[next].pop()
		}
		it.nbOK = false
		u := &x.users[i]
		if next != deferredK {
			// The drift in a key bounds how far any user's fair-share
			// factor can have risen since the key was computed; the
			// factor's bound now (exp2Upper, cheap beside an evaluation)
			// is often far lower. A user whose bound drifted past that is
			// visited again at it instead, and its key lowered to it
			// (settleBounds), so it drifts from there.
			cb := it.freshBound(u, i, next)
			b := cb
			if next == 0 {
				b += it.shift
			}
			if b < nb {
				it.deferred.push(b, i)
				x.recap = append(x.recap, recapKey{slot: i, k: int8(next), key: cb - it.drift})
				continue
			}
		}
		u.evalGen, u.cur = x.gen, [numLists]int{}
		x.evaluated = append(x.evaluated, i)
		it.s.work.UsersEvaluated++
		it.fs[i] = it.fairShare(int(i))
		u.fresh = it.s.userKeys(u, it.eb, max(it.fs[i], 0), it.drift) // exact now: a tight key
		if it.advance(int(i)) {
			it.heap = append(it.heap, i)
			it.up(len(it.heap) - 1)
		}
	}
}

// freshBound returns the bound of user slot i's lists of boundKind k now,
// with its fair-share factor bounded by fsUpper (the uncapped one without
// the age shift).
func (it *passIter) freshBound(u *userLists, i int32, k int) float64 {
	fs := it.s.fsUpper(int(i))
	b := math.Inf(-1)
	for kind := listUncapped; kind < numLists; kind++ {
		if boundKind(kind) == k && len(u.lists[kind]) > 0 {
			b = max(b, it.eb.bound(u.lists[kind][0].key, kind, fs))
		}
	}
	return b
}

// nextBound returns where the next user to visit is, the bound heap (0
// or 1) whose first unvisited user has the largest bound or deferredK
// for the first deferred user, and that bound (key plus drift, plus the
// age shift for uncapped bounds; a deferred user's fresh bound); -1 when
// every user is evaluated. No unevaluated user has a job of higher
// priority than the bound. Users the pass evaluated already are passed
// on the way.
func (it *passIter) nextBound() (int, float64) {
	if it.nbOK {
		return it.nbK, it.nbV
	}
	x := it.s.idx
	next, nb := -1, 0.0
	for it.deferred.len() > 0 && x.users[it.deferred.top().slot].evalGen == x.gen {
		it.deferred.pop()
	}
	if it.deferred.len() > 0 {
		next, nb = deferredK, it.deferred.top().key
	}
	for k := range it.fr {
		f := &it.fr[k]
		n, ok := f.top()
		for ok && x.users[n.slot].evalGen == x.gen {
			f.pop()
			n, ok = f.top()
		}
		if !ok {
			continue
		}
		b := n.key + it.drift
		if k == 0 {
			b += it.shift
		}
		if next < 0 || b > nb {
			next, nb = k, b
		}
	}
	it.nbK, it.nbV, it.nbOK = next, nb, true
	return next, nb
}

func (it *passIter) less(i, j int) bool {
	a, b := it.heap[i], it.heap[j]
	return before(&it.cand[a], it.prio[a], &it.cand[b], it.prio[b])
}

func (it *passIter) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !it.less(i, p) {
			return
		}
		it.heap[i], it.heap[p] = it.heap[p], it.heap[i]
		i = p
	}
}

func (it *passIter) down(i int) {
	n := len(it.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && it.less(r, l) {
			m = r
		}
		if !it.less(m, i) {
			return
		}
		it.heap[i], it.heap[m] = it.heap[m], it.heap[i]
		i = m
	}
}
