package sim

import (
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

// hintPos is prioIndex.hint: a job and where its entry is.
type hintPos struct {
	id   JobID
	slot int32
	k    uint8
	m    int32
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
	limit  int64 // job.planSec: Job.TimeMinSec, or Job.LimitSec without one
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
