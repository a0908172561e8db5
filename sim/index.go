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
	where []uint8   // per JobID: listNone or the list kind it is in
	users []userLists
	// active lists the user slots whose lists are not empty, in no
	// particular order (a pass's result does not depend on it);
	// userLists.pos is each one's index there.
	active []int32
	// cross holds the uncapped jobs by when they reach the age cap: events
	// of (at, job), ordered by time, then job (seq is the JobID).
	cross crossQueue
	// hint is where the job the last pass yielded is listed, so removing
	// it when it starts needs no search.
	hint hintPos
	gen  uint32
	// dirty lists the user slots with entries gone stale since the last
	// prepareIndex (userLists.dirty marks them).
	dirty []int32
	// heaps hold the active user slots by their bound keys (bound.go),
	// one heap per boundKind, once bounded (the first pass computes them).
	// evaluated lists the slots the last pass evaluated, whose fresh keys
	// settleBounds sets.
	heaps     [2]boundHeap
	bounded   bool
	evaluated []int32
	// recap lists the keys the last pass lowered to a user's fresh bound
	// (evaluate), set by settleBounds.
	recap []recapKey
	// drift is boundDrift for the usage total driftAt and scale
	// driftScale: a pass and the jobs queued at one time share it.
	drift, driftAt, driftScale float64
}

// entry is a job in a list with its key when it was added: a stale entry
// keeps it (the job's key in prioIndex.key may have changed since, when
// it moved to the capped list), so a list stays sorted.
type entry struct {
	key float64
	// from and nodes are the job's priority inputs (agedFrom, Job.Nodes),
	// kept beside the key (with the submission time that breaks ties and
	// the limit a backfill pass plans with) so a pass reads its lists
	// sequentially.
	from   int64
	submit int64 // Job.Submit: order's tie-break
	limit  int64 // Job.LimitSec
	id     JobID
	nodes  int32
	// taken is the pass generation that yielded the entry, and dead
	// marks a stale entry (the job left the list): kept in the entry, not
	// per JobID, so a pass reads its lists without touching the job
	// tables.
	taken uint32
	dead  bool
}

const (
	listNone uint8 = iota
	listUncapped
	listCapped
	// listRecent holds capped jobs that crossed recently, a short sorted
	// list merged into listCapped when it grows past a fraction of it:
	// a crossing job belongs at the end of its size's run, anywhere in
	// a long capped list, and inserting it there would move the rest.
	listRecent
	numLists
)

// isCapped reports whether list kind k holds capped jobs.
func isCapped(k uint8) bool { return k >= listCapped }

// boundKind returns the index of the bound (and of prioIndex.heaps) of
// list kind k: 0 for uncapped jobs, 1 for capped ones.
func boundKind(k uint8) int {
	if isCapped(k) {
		return 1
	}
	return 0
}

// userLists are one user's indexed jobs (slot 0: jobs without a user).
// Lists may hold stale entries (where no longer names the list), dropped
// when they outnumber the live ones.
type userLists struct {
	lists [numLists][]entry // indexed by list kind
	stale [numLists]int
	cur   [numLists]int // a pass's cursor: entries before it are taken or stale
	// runFrom[k]..runEnd[k] is a run of equal keys of list k found by a
	// pass (entries from runFrom to the run's end; empty when runFrom ==
	// runEnd). It holds across passes: marking entries dead keeps their
	// keys, trimming the list's head shifts it (trimRun), and an insertion
	// shifts or clears it (insertRun); a rebuild clears it.
	runFrom, runEnd [numLists]int
	// lb caches each list's first remaining job in exact order for the
	// pass of generation lbGen[k] (listBest): its index (-1: none) and
	// priority. It stays right while that entry remains: the pass only
	// takes entries, and taking others does not change which comes first.
	lbGen [numLists]uint32
	lbM   [numLists]int32
	lbP   [numLists]float64
	pos   int32 // index in prioIndex.active, -1 when not there
	dirty bool  // listed in prioIndex.dirty
	// fresh[k] is the bound key (bound.go) of the user's lists of
	// boundKind k that the user's last evaluation gave, until
	// settleBounds sets it in the heap. bpos[k] is the user's index in
	// prioIndex.heaps[k], -1 when not there.
	fresh   [2]float64
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
	x := &prioIndex{driftAt: math.NaN()} // boundDrift computes it on first use
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
		kind = listRecent
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
	e := entry{key: key, from: from, submit: s.jobs[id].Submit, limit: s.jobs[id].LimitSec, id: id, nodes: s.jobs[id].Nodes}
	i, _ := s.searchList(l, e, true) // a new job's key is its list's smallest, or near it
	u.lists[kind] = slices.Insert(l, i, e)
	u.insertRun(kind, i)
	if kind == listRecent && len(u.lists[kind]) > max(64, len(u.lists[listCapped])/8) {
		s.mergeRecent(u)
	}
	s.raiseBound(s.slot(id), id)
}

// mergeRecent moves a user's recent capped entries into its capped list
// (one merge, dropping stale entries of both): O(n) once per n/8
// crossings. It merges from the back into the capped list's own array
// (grown when short), so a merge makes no garbage: on a deep queue a
// fresh list per merge was most of what a replay allocated, and the
// collections it caused scanned the whole job table.
func (s *Sim) mergeRecent(u *userLists) {
	x := s.idx
	a, b := u.lists[listCapped], u.lists[listRecent]
	buf := slices.Grow(a, len(b))[:len(a)+len(b)]
	// w >= i+j+1 while entries of b remain: a write never lands on an
	// entry of a not yet read.
	w := len(buf) - 1
	for i, j := len(a)-1, len(b)-1; i >= 0 || j >= 0; {
		if j < 0 || i >= 0 && s.indexCmp(a[i], b[j]) > 0 {
			if !a[i].dead {
				buf[w] = a[i]
				w--
			}
			i--
			continue
		}
		if !b[j].dead {
			x.where[b[j].id] = listCapped
			buf[w] = b[j]
			w--
		}
		j--
	}
	u.lists[listCapped], u.lists[listRecent] = buf[w+1:], b[:0]
	u.clearRun(listCapped)
	u.clearRun(listRecent)
	u.stale[listCapped], u.stale[listRecent] = 0, 0
}

// indexCmp orders one list: key descending, then submission, then ID.
func (s *Sim) indexCmp(ea, eb entry) int {
	if c := cmp.Compare(eb.key, ea.key); c != 0 {
		return c
	}
	if c := cmpInt64(ea.submit, eb.submit); c != 0 {
		return c
	}
	return cmpInt64(int64(ea.id), int64(eb.id))
}

// searchList is slices.BinarySearchFunc(l, e, s.indexCmp): where e is or
// belongs in l. It probes from the end of l (fromEnd) or from its start,
// at distances 1, 2, 4, … before the binary search, so it costs
// O(log d) comparisons for an answer d entries from that end: a job
// queued now belongs at or near the end of its list, and a job reaching
// the age cap is at or near the front of its uncapped list.
func (s *Sim) searchList(l []entry, e entry, fromEnd bool) (int, bool) {
	n := len(l)
	lo, hi := 0, n // the answer is in [lo, hi]
	for step := 1; step <= n; step *= 2 {
		i := step - 1
		if fromEnd {
			i = n - step
		}
		if s.indexCmp(l[i], e) < 0 {
			lo = i + 1
			if fromEnd {
				break
			}
		} else {
			hi = i
			if !fromEnd {
				break
			}
		}
	}
	i, found := slices.BinarySearchFunc(l[lo:min(hi+1, n)], e, s.indexCmp)
	return lo + i, found
}

// indexRemove drops a job that started or left the queue.
func (s *Sim) indexRemove(id JobID) {
	x := s.idx
	if x == nil || int(id) >= len(x.where) || x.where[id] == listNone {
		return
	}
	u := &x.users[s.slot(id)]
	k := x.where[id]
	l := u.lists[k]
	i := int(x.hint.m)
	if h := x.hint; h.id != id || h.slot != int32(s.slot(id)) || h.k != k || i >= len(l) || l[i].id != id || l[i].dead {
		var found bool
		i, found = s.searchList(l, entry{key: x.key[id], submit: s.jobs[id].Submit, id: id}, false) // one reaching the age cap is near the front
		if !found {
			panic("sim: indexed job missing from its list")
		}
	}
	l[i].dead = true
	u.stale[k]++
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
	if len(x.key) > 0 { // jobs submitted after New: amortised growth; the first call sizes the index to the job table
		n += n/2 + 16
	}
	x.key = append(x.key, make([]float64, n-len(x.key))...)
	x.where = append(x.where, make([]uint8, n-len(x.where))...)
}

// prepareIndex moves the jobs that reached the age cap to their user's
// capped list and, for the users with entries gone stale since the last
// call, drops stale entries where they outnumber live ones.
func (s *Sim) prepareIndex() {
	x := s.idx
	if len(x.evaluated) > 0 || len(x.recap) > 0 {
		s.settleBounds()
	}
	for e, ok := x.cross.peek(); ok && e.at <= s.now; e, ok = x.cross.peek() {
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
		for k := listUncapped; k < numLists; k++ {
			l := u.lists[k]
			if u.stale[k] == 0 {
				continue
			}
			// The first jobs are the ones that start: drop stale ones
			// there at once (amortised O(1) per job), the rest when they
			// are half the list.
			h := 0
			for h < len(l) && l[h].dead {
				h++
			}
			l, u.stale[k] = l[h:], u.stale[k]-h
			u.trimRun(k, h)
			if u.stale[k] > 0 && 2*u.stale[k] >= len(l) {
				l = slices.DeleteFunc(l, func(e entry) bool { return e.dead })
				u.stale[k] = 0
				u.clearRun(k)
			}
			u.lists[k] = l
		}
		if len(u.lists[listUncapped])+len(u.lists[listCapped])+len(u.lists[listRecent]) == 0 && u.pos >= 0 {
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
	// bandBase is band(0): band(key) is bandBase + 1e-9·|key| up to
	// rounding, far below the band itself.
	bandBase float64
	// ref marks a reference pass (Sim.reference): sorted is the whole
	// queue by a full sort (order), at the next index in it.
	ref    bool
	sorted []JobID
	at     int
}

// hintPos is prioIndex.hint: a job and where its entry is.
type hintPos struct {
	id   JobID
	slot int32
	k    uint8
	m    int32
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
	it.bandBase = it.band(0)
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
	return it.best(i, listNone, &it.cand[i], &it.prio[i], &it.pos[i])
}

// best sets *dst, *p and *at to slot i's first remaining job in exact
// order among its lists other than skip (listNone: all of them), its
// priority and its place, and reports false when there is none (then
// they are unset). It moves the lists' cursors past taken and stale
// entries.
func (it *passIter) best(i int, skip uint8, dst *entry, p *float64, at *listPos) bool {
	u := &it.s.idx.users[i]
	found, bestP, bestK, bestM := false, 0.0, uint8(0), 0
	for k := listUncapped; k < numLists; k++ {
		if k == skip || len(u.lists[k]) == 0 {
			continue
		}
		m, q, ok := it.listBest(u, i, k)
		if ok && (!found || before(&u.lists[k][m], q, &u.lists[bestK][bestM], bestP)) {
			found, bestP, bestK, bestM = true, q, k, m
		}
	}
	if found {
		*dst, *p, *at = u.lists[bestK][bestM], bestP, listPos{k: bestK, m: int32(bestM)}
	}
	return found
}

// listBest returns the index and priority of the first remaining job of
// user u's list k in exact order, and false when none remains. It moves
// the list's cursor past taken and stale entries.
func (it *passIter) listBest(u *userLists, i int, k uint8) (int, float64, bool) {
	x := it.s.idx
	l := u.lists[k]
	c := u.cur[k]
	for c < len(l) && (l[c].dead || l[c].taken == x.gen) {
		c++
	}
	u.cur[k] = c
	if u.lbGen[k] == x.gen {
		if m := u.lbM[k]; m < 0 || !l[m].dead && l[m].taken != x.gen {
			return int(m), u.lbP[k], m >= 0
		}
	}
	found, bestP, bestM := false, 0.0, -1
	if c < len(l) {
		fs := it.fs[i]
		lo := l[c].key - it.band2(l[c].key)
		prev := -1 // the last entry evaluated: a job with the same inputs has the same priority and comes later
		for m := c; m < len(l) && l[m].key >= lo; m++ {
			e := &l[m]
			if e.dead || e.taken == x.gen {
				continue
			}
			if prev >= 0 && sameInputs(e, &l[prev], k) {
				if isCapped(k) { // the whole run of this size has prev's priority: skip it
					m = u.endOfRun(k, l, m) - 1
				}
				continue
			}
			prev = m
			q := it.priority(e, k, fs)
			if !found || before(e, q, &l[bestM], bestP) {
				found, bestP, bestM = true, q, m
			}
		}
	}
	u.lbGen[k], u.lbM[k], u.lbP[k] = x.gen, int32(bestM), bestP
	return bestM, bestP, found
}

// band2 is band(key) as the iterator computes it: bandBase plus the
// key's share.
func (it *passIter) band2(key float64) float64 { return it.bandBase + 1e-9*math.Abs(key) }

// sameInputs reports whether two entries of list kind k have the same
// priority inputs, and so the same priority (their order is then the
// list's: submission, then ID).
func sameInputs(a, b *entry, k uint8) bool {
	return a.key == b.key && a.nodes == b.nodes && (isCapped(k) || a.from == b.from)
}

// priority returns the exact priority of entry e of list kind k for a
// user with fair-share input fs (priorityFrom's float).
func (it *passIter) priority(e *entry, k uint8, fs float64) float64 {
	if isCapped(k) {
		return it.s.priorityCapped(e.key, fs)
	}
	return it.s.priorityFrom(e.nodes, e.from, fs)
}

// fairShare returns user slot i's fair-share term input for this pass:
// its factor, or −1 for slot 0 (jobs without a user get no term).
func (it *passIter) fairShare(i int) float64 {
	if i == 0 || it.s.cfg.Priority.FairShareWeight == 0 {
		return -1
	}
	return it.s.fairShare(int32(i-1), it.total)
}

// endOfRun is endOfKeyRun for list k, remembered across passes (a
// user's capped jobs of one size form one long run, searched for again by
// every pass that evaluates the user otherwise).
func (u *userLists) endOfRun(k uint8, l []entry, m int) int {
	if u.runFrom[k] <= m && m < u.runEnd[k] {
		return u.runEnd[k]
	}
	e := endOfKeyRun(l, m, l[m].key)
	u.runFrom[k], u.runEnd[k] = m, e
	return e
}

// trimRun shifts the remembered run of list k after h entries were
// dropped from the list's head.
func (u *userLists) trimRun(k uint8, h int) {
	u.runFrom[k], u.runEnd[k] = max(u.runFrom[k]-h, 0), max(u.runEnd[k]-h, 0)
}

// insertRun keeps the remembered run of list k right after an entry was
// inserted at index i: shifted when i is before it, cleared when i is
// inside it or at its end (the entry may extend it).
func (u *userLists) insertRun(k uint8, i int) {
	switch {
	case i > u.runEnd[k]:
	case i < u.runFrom[k]:
		u.runFrom[k]++
		u.runEnd[k]++
	default:
		u.clearRun(k)
	}
}

// clearRun forgets the remembered run of list k (the list was rebuilt).
func (u *userLists) clearRun(k uint8) { u.runFrom[k], u.runEnd[k] = 0, 0 }

// before is order's comparison of two entries with priorities pa and
// pb: priority descending, then submission, then ID.
func before(a *entry, pa float64, b *entry, pb float64) bool {
	if pa != pb {
		return pa > pb
	}
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	return a.id < b.id
}

func (it *passIter) less(i, j int) bool {
	a, b := it.heap[i], it.heap[j]
	return before(&it.cand[a], it.prio[a], &it.cand[b], it.prio[b])
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
				j := &it.s.jobs[id]
				it.last = entry{limit: j.LimitSec, id: id, nodes: j.Nodes}
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

// job returns the nodes and time limit (seconds) of the job next
// returned last, from the index (a pass need not read the job).
func (it *passIter) job() (nodes int32, limitSec int64) { return it.last.nodes, it.last.limit }

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
