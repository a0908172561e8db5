package sim

import (
	"cmp"
	"math"
	"slices"
)

// prioIndex keeps the pending jobs in priority order incrementally, so a
// scheduling pass that looks at k jobs costs O(U + k log U) for U users
// with pending jobs instead of sorting every pending job.
//
// A pending job's multifactor priority (priorityOf) is
//
//	size + AgeWeight·min((now − from)/MaxAge, 1) + FairShareWeight·fs(user, now).
//
// Within one user the fair-share term is shared, so the order of that
// user's jobs changes only when a job reaches the age cap: before it,
// jobs are ordered by key = size − AgeWeight·(from − base)/MaxAge (the
// age term minus what every uncapped job shares), after it by size. Each
// user therefore has two lists sorted once, on insertion: uncapped and
// capped. A pass merges the users' lists with a heap keyed by each
// user's first job at its exact priority (priorityOf, the very float the
// sort in order uses). Keys are exact up to rounding: the first job of a
// list is chosen among every job whose key is within a tiny band of the
// list's first key, by exact priority, so the result is exactly order's.
// Ghosts (jobs that never run) are not indexed; passes skip them anyway.
type prioIndex struct {
	base  int64     // time origin of the keys, Unix seconds
	key   []float64 // per JobID: the job's sort key in its list
	where []uint8   // per JobID: listNone, listUncapped or listCapped
	taken []uint32  // per JobID: the pass generation that yielded it
	users []userLists
	// active lists the user slots whose lists are not empty, in no
	// particular order (a pass's result does not depend on it);
	// userLists.pos is each one's index there.
	active []int32
	// cross holds the uncapped jobs by when they reach the age cap: events
	// of (at, job), ordered by time, then job (seq is the JobID).
	cross eventHeap
	gen   uint32
	// dirty lists the user slots with entries gone stale since the last
	// prepareIndex (userLists.dirty marks them).
	dirty []int32
	// orders list the active user slots by their bounds (bound.go), one
	// order per list kind (index kind-listUncapped); bounded says the
	// bounds hold until boundUntil (Unix seconds), computed with usage
	// totals of at most totalMax.
	orders     [2]boundOrder
	bounded    bool
	boundUntil int64
	totalMax   float64
}

// entry is a job in a list with its key when it was added: a stale entry
// keeps it (the job's key in prioIndex.key may have changed since, when
// it moved to the capped list), so a list stays sorted.
type entry struct {
	key float64
	id  JobID
}

const (
	listNone uint8 = iota
	listUncapped
	listCapped
)

// userLists are one user's indexed jobs (slot 0: jobs without a user).
// Lists may hold stale entries (where no longer names the list), dropped
// when they outnumber the live ones.
type userLists struct {
	lists [3][]entry // indexed by listUncapped, listCapped
	stale [3]int
	cur   [3]int // a pass's cursor: entries before it are taken or stale
	pos   int32  // index in prioIndex.active, -1 when not there
	dirty bool   // listed in prioIndex.dirty
	// bound[k] bounds the priority of the user's jobs in list
	// listUncapped+k until prioIndex.boundUntil (the uncapped one without
	// the age shift), with fair-share factor at most fsMax; bpos[k] is
	// the user's index in prioIndex.orders[k], -1 when not there.
	bound   [2]float64
	fsMax   float64
	bpos    [2]int32
	evalGen uint32 // the pass generation that evaluated the user
}

// index returns the priority index, built on first use (Clone drops it).
func (s *Sim) index() *prioIndex {
	if s.idx == nil {
		s.buildIndex()
	}
	return s.idx
}

func (s *Sim) buildIndex() {
	x := &prioIndex{}
	if len(s.arrivals) > 0 {
		x.base = s.jobs[s.arrivals[0]].Submit
	}
	s.idx = x
	ids := slices.Clone(s.pending)
	slices.Sort(ids) // deterministic insertion order (the lists' order does not depend on it)
	for _, id := range ids {
		s.indexAdd(id)
	}
}

// slot returns the user slot of a job.
func (s *Sim) slot(id JobID) int { return int(s.jobs[id].User) + 1 }

// agedFrom returns when a pending job's age starts.
func (s *Sim) agedFrom(id JobID) int64 {
	if s.cfg.AgeFromSubmit {
		return s.jobs[id].Submit
	}
	return s.st.get(id).elig
}

// capsAge reports whether ages are capped (and so jobs cross to the capped
// list).
func (s *Sim) capsAge() bool {
	pc := &s.cfg.Priority
	return pc.AgeWeight != 0 && !pc.AgeUncapped
}

func (s *Sim) sizeTerm(id JobID) float64 {
	return s.cfg.Priority.SizeWeight * float64(s.jobs[id].Nodes) / float64(s.cfg.Nodes)
}

// indexAdd indexes a job that became pending (no-op without an index).
func (s *Sim) indexAdd(id JobID) {
	x := s.idx
	if x == nil || s.ghost(id) {
		return
	}
	x.grow(len(s.jobs))
	for len(x.users) <= s.slot(id) {
		x.users = append(x.users, userLists{pos: -1, bpos: [2]int32{-1, -1}})
	}
	pc := &s.cfg.Priority
	from := s.agedFrom(id)
	kind, key := listUncapped, s.sizeTerm(id)
	switch {
	case s.capsAge() && s.now-from >= pc.MaxAgeSec:
		kind = listCapped
	case pc.AgeWeight != 0:
		key -= pc.AgeWeight * float64(from-x.base) / float64(pc.MaxAgeSec)
		if s.capsAge() {
			x.cross.push(event{at: from + pc.MaxAgeSec, seq: uint64(id), job: id})
		}
	}
	x.key[id], x.where[id] = key, kind
	u := &x.users[s.slot(id)]
	if u.pos < 0 {
		u.pos = int32(len(x.active))
		x.active = append(x.active, int32(s.slot(id)))
	}
	l := u.lists[kind]
	e := entry{key: key, id: id}
	i, _ := slices.BinarySearchFunc(l, e, s.indexCmp)
	u.lists[kind] = slices.Insert(l, i, e)
	s.raiseBound(s.slot(id), id)
}

// indexCmp orders one list: key descending, then submission, then ID.
func (s *Sim) indexCmp(ea, eb entry) int {
	a, b := ea.id, eb.id
	if c := cmp.Compare(eb.key, ea.key); c != 0 {
		return c
	}
	if c := cmpInt64(s.jobs[a].Submit, s.jobs[b].Submit); c != 0 {
		return c
	}
	return cmpInt64(int64(a), int64(b))
}

// indexRemove drops a job that started or left the queue.
func (s *Sim) indexRemove(id JobID) {
	x := s.idx
	if x == nil || int(id) >= len(x.where) || x.where[id] == listNone {
		return
	}
	u := &x.users[s.slot(id)]
	u.stale[x.where[id]]++
	x.where[id] = listNone
	if !u.dirty {
		u.dirty = true
		x.dirty = append(x.dirty, int32(s.slot(id)))
	}
}

func (x *prioIndex) grow(n int) {
	if len(x.key) >= n {
		return
	}
	n += n/2 + 16
	x.key = append(x.key, make([]float64, n-len(x.key))...)
	x.where = append(x.where, make([]uint8, n-len(x.where))...)
	x.taken = append(x.taken, make([]uint32, n-len(x.taken))...)
}

// prepareIndex moves the jobs that reached the age cap to their user's
// capped list and, for the users with entries gone stale since the last
// call, drops stale entries where they outnumber live ones.
func (s *Sim) prepareIndex() {
	x := s.idx
	for len(x.cross) > 0 && x.cross[0].at <= s.now {
		id := x.cross.pop().job
		if x.where[id] != listUncapped {
			continue
		}
		s.indexRemove(id)
		s.indexAdd(id) // now capped: indexAdd decides by the same rule
	}
	for _, i := range x.dirty {
		u := &x.users[i]
		u.dirty = false
		for k := listUncapped; k <= listCapped; k++ {
			l := u.lists[k]
			if u.stale[k] == 0 {
				continue
			}
			// The first jobs are the ones that start: drop stale ones
			// there at once (amortised O(1) per job), the rest when they
			// are half the list.
			h := 0
			for h < len(l) && x.where[l[h].id] != k {
				h++
			}
			l, u.stale[k] = l[h:], u.stale[k]-h
			if u.stale[k] > 0 && 2*u.stale[k] >= len(l) {
				l = slices.DeleteFunc(l, func(e entry) bool { return x.where[e.id] != k })
				u.stale[k] = 0
			}
			u.lists[k] = l
		}
		if len(u.lists[listUncapped])+len(u.lists[listCapped]) == 0 && u.pos >= 0 {
			a, last := u.pos, x.active[len(x.active)-1]
			x.active[a], x.users[last].pos = last, a
			x.active = x.active[:len(x.active)-1]
			u.pos = -1
			s.dropBound(int(i))
		}
	}
	x.dirty = x.dirty[:0]
}

// passIter yields the indexed jobs in exactly order's order (ghosts
// excluded), with their priorities, for one scheduling pass. Jobs that
// start or leave during the pass are no longer yielded; none are added.
// Users are evaluated lazily, in the order of their bounds (bound.go).
type passIter struct {
	s     *Sim
	total float64
	heap  []int32   // evaluated user slots with a candidate, by their candidate
	cand  []JobID   // per slot: its next job
	prio  []float64 // per slot: that job's priority
	scan  [2]int    // users prioIndex.orders[k][:scan[k]] are evaluated
	shift float64   // ageShift: what the uncapped bounds leave out
	// ref marks a reference pass (Sim.reference): sorted is the whole
	// queue by a full sort (order), at the next index in it.
	ref    bool
	sorted []JobID
	at     int
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
	*it = passIter{s: s, total: s.usageTotal, heap: it.heap[:0], cand: it.cand[:0], prio: it.prio[:0]}
	for len(it.cand) < len(x.users) {
		it.cand = append(it.cand, NoJob)
		it.prio = append(it.prio, 0)
	}
	if s.cfg.Priority.FairShareWeight != 0 && len(s.scratch.fs) < s.users {
		s.scratch.fs = make([]float64, s.users+s.users/2+1)
		s.scratch.fsGen = make([]uint64, len(s.scratch.fs))
	}
	s.refreshBounds()
	it.shift = s.ageShift()
	if s.reference {
		it.ref, it.sorted = true, slices.DeleteFunc(slices.Clone(s.order()), s.ghost)
	}
	return it
}

// band is the key distance within which list order may differ from exact
// priority order by rounding: far above the rounding error of keys and
// priorities (about 1e-16 of their magnitude), far below any real gap.
func (it *passIter) band(key float64) float64 {
	pc := &it.s.cfg.Priority
	age := 0.0
	if pc.AgeWeight != 0 {
		age = math.Abs(pc.AgeWeight * float64(it.s.now-it.s.idx.base) / float64(pc.MaxAgeSec))
	}
	return 1e-9 * (1 + math.Abs(key) + age + math.Abs(pc.SizeWeight) + math.Abs(pc.AgeWeight) + math.Abs(pc.FairShareWeight))
}

// advance sets slot i's candidate: the first of its remaining jobs in
// exact order. It reports false when the user has none left.
func (it *passIter) advance(i int) bool {
	s, x := it.s, it.s.idx
	u := &x.users[i]
	best, bestP := NoJob, 0.0
	for k := listUncapped; k <= listCapped; k++ {
		l := u.lists[k]
		c := u.cur[k]
		for c < len(l) && (x.where[l[c].id] != k || x.taken[l[c].id] == x.gen) {
			c++
		}
		u.cur[k] = c
		if c == len(l) {
			continue
		}
		lo := l[c].key - it.band(l[c].key)
		prev := NoJob // the last job evaluated: a job with the same inputs has the same priority and comes later
		for m := c; m < len(l) && l[m].key >= lo; m++ {
			id := l[m].id
			if x.where[id] != k || x.taken[id] == x.gen {
				continue
			}
			if prev != NoJob && x.key[id] == x.key[prev] && s.jobs[id].Nodes == s.jobs[prev].Nodes &&
				(k == listCapped || s.agedFrom(id) == s.agedFrom(prev)) {
				if k == listCapped { // the whole run of this size has prev's priority: skip it
					m = endOfKeyRun(l, m, x.key[prev]) - 1
				}
				continue
			}
			prev = id
			p := s.priorityOf(id, it.total)
			if best == NoJob || s.beforeP(id, p, best, bestP) {
				best, bestP = id, p
			}
		}
	}
	it.cand[i], it.prio[i] = best, bestP
	return best != NoJob
}

// beforeP is order's comparison: priority descending, then submission,
// then ID.
func (s *Sim) beforeP(a JobID, pa float64, b JobID, pb float64) bool {
	if pa != pb {
		return pa > pb
	}
	if sa, sb := s.jobs[a].Submit, s.jobs[b].Submit; sa != sb {
		return sa < sb
	}
	return a < b
}

func (it *passIter) less(i, j int) bool {
	a, b := it.heap[i], it.heap[j]
	return it.s.beforeP(it.cand[a], it.prio[a], it.cand[b], it.prio[b])
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

// evaluate adds the users whose bound reaches the best candidate so far
// (all of them while there is none) to the heap at their exact
// candidates: after it, the heap's top is the next job in order.
func (it *passIter) evaluate() {
	x := it.s.idx
	for {
		next, nb := -1, 0.0 // the order whose next unevaluated user has the largest bound
		for k := range x.orders {
			o := x.orders[k].slots
			for it.scan[k] < len(o) && x.users[o[it.scan[k]]].evalGen == x.gen {
				it.scan[k]++
			}
			if it.scan[k] == len(o) {
				continue
			}
			b := x.users[o[it.scan[k]]].bound[k]
			if k == 0 {
				b += it.shift
			}
			if next < 0 || b > nb {
				next, nb = k, b
			}
		}
		if next < 0 || len(it.heap) > 0 && nb < it.prio[it.heap[0]] {
			return
		}
		i := x.orders[next].slots[it.scan[next]]
		it.scan[next]++
		u := &x.users[i]
		u.evalGen, u.cur = x.gen, [3]int{}
		it.s.work.UsersEvaluated++
		if it.advance(int(i)) {
			it.heap = append(it.heap, i)
			it.up(len(it.heap) - 1)
		}
	}
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

// next returns the next job and its priority, or false when none is left.
func (it *passIter) next() (JobID, float64, bool) {
	x := it.s.idx
	if it.ref {
		for it.at < len(it.sorted) {
			id := it.sorted[it.at]
			it.at++
			if it.s.st.get(id).status == statusPending { // not started or left since
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
		id, p := it.cand[i], it.prio[i]
		x.taken[id] = x.gen
		if !it.advance(int(i)) {
			n := len(it.heap) - 1
			it.heap[0] = it.heap[n]
			it.heap = it.heap[:n]
		}
		if len(it.heap) > 0 {
			it.down(0)
		}
		if x.where[id] == listNone { // started or left since it became the candidate
			continue
		}
		return id, p, true
	}
}

// endOfKeyRun returns the end of the run of key from m on in l (sorted by
// key descending): the first index whose key is below it.
func endOfKeyRun(l []entry, m int, key float64) int {
	n, _ := slices.BinarySearchFunc(l[m:], key, func(e entry, k float64) int {
		if e.key >= k {
			return -1
		}
		return 1
	})
	return m + n
}
