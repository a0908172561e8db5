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
	lists [3][]JobID // indexed by listUncapped, listCapped
	stale [3]int
	cur   [3]int // a pass's cursor: entries before it are taken or stale
	pos   int32  // index in prioIndex.active, -1 when not there
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
		x.users = append(x.users, userLists{pos: -1})
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
	i, _ := slices.BinarySearchFunc(l, id, func(e, t JobID) int { return s.indexCmp(e, t) })
	u.lists[kind] = slices.Insert(l, i, id)
}

// indexCmp orders one list: key descending, then submission, then ID.
func (s *Sim) indexCmp(a, b JobID) int {
	x := s.idx
	if c := cmp.Compare(x.key[b], x.key[a]); c != 0 {
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
	x.users[s.slot(id)].stale[x.where[id]]++
	x.where[id] = listNone
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

// prepare moves the jobs that reached the age cap to their user's capped
// list and drops stale entries where they outnumber live ones.
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
	for a := len(x.active) - 1; a >= 0; a-- { // backwards: a user may leave active
		u := &x.users[x.active[a]]
		for k := listUncapped; k <= listCapped; k++ {
			l := u.lists[k]
			if u.stale[k] == 0 {
				continue
			}
			// The first jobs are the ones that start: drop stale ones
			// there at once (amortised O(1) per job), the rest when they
			// are half the list.
			h := 0
			for h < len(l) && x.where[l[h]] != k {
				h++
			}
			l, u.stale[k] = l[h:], u.stale[k]-h
			if u.stale[k] > 0 && 2*u.stale[k] >= len(l) {
				l = slices.DeleteFunc(l, func(id JobID) bool { return x.where[id] != k })
				u.stale[k] = 0
			}
			u.lists[k] = l
		}
		if len(u.lists[listUncapped])+len(u.lists[listCapped]) == 0 {
			last := x.active[len(x.active)-1]
			x.active[a], x.users[last].pos = last, int32(a)
			x.active = x.active[:len(x.active)-1]
			u.pos = -1
		}
	}
}

// passIter yields the indexed jobs in exactly order's order (ghosts
// excluded), with their priorities, for one scheduling pass. Jobs that
// start or leave during the pass are no longer yielded; none are added.
type passIter struct {
	s     *Sim
	total float64
	heap  []int32   // user slots with a candidate, by their candidate
	cand  []JobID   // per slot: its next job
	prio  []float64 // per slot: that job's priority
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
	for _, i := range x.active {
		u := &x.users[i]
		u.cur = [3]int{}
		if len(u.lists[listUncapped])+len(u.lists[listCapped]) == u.stale[listUncapped]+u.stale[listCapped] {
			continue
		}
		if it.advance(int(i)) {
			it.heap = append(it.heap, i)
		}
	}
	for i := len(it.heap)/2 - 1; i >= 0; i-- {
		it.down(i)
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
		for c < len(l) && (x.where[l[c]] != k || x.taken[l[c]] == x.gen) {
			c++
		}
		u.cur[k] = c
		if c == len(l) {
			continue
		}
		lo := x.key[l[c]] - it.band(x.key[l[c]])
		prev := NoJob // the last job evaluated: a job with the same inputs has the same priority and comes later
		for m := c; m < len(l) && x.key[l[m]] >= lo; m++ {
			id := l[m]
			if x.where[id] != k || x.taken[id] == x.gen {
				continue
			}
			if prev != NoJob && x.key[id] == x.key[prev] && s.jobs[id].Nodes == s.jobs[prev].Nodes &&
				(k == listCapped || s.agedFrom(id) == s.agedFrom(prev)) {
				if k == listCapped { // the whole run of this size has prev's priority: skip it
					m = endOfKeyRun(l, m, x.key[prev], x.key) - 1
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

// next returns the next job and its priority, or false when none is left.
func (it *passIter) next() (JobID, float64, bool) {
	x := it.s.idx
	for len(it.heap) > 0 {
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
	return NoJob, 0, false
}

// endOfKeyRun returns the end of the run of key from m on in l (sorted by
// key descending): the first index whose key is below it.
func endOfKeyRun(l []JobID, m int, key float64, keys []float64) int {
	n, _ := slices.BinarySearchFunc(l[m:], key, func(id JobID, k float64) int {
		if keys[id] >= k {
			return -1
		}
		return 1
	})
	return m + n
}
