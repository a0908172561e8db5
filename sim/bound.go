package sim

import "math"

// Upper bounds on each user's best priority let a pass look at only the
// users near the top instead of all of them: a pass evaluates users (at
// their exact priority, as before) in descending order of their bounds
// and stops as soon as the best job found so far is at least the next
// bound, since no user further down can beat it. The main pass usually
// needs one job, so it costs O(k log U) for the k users whose bounds
// reach the top job's priority, not O(U).
//
// A user has two bounds, one per list kind (uncapped, capped): the
// priority of the list's first entry (the largest key) with the user's
// fair-share factor bounded from above. A capped job's priority does not
// grow with time; an uncapped job's age term grows at the same rate for
// every job, so the uncapped bounds are kept without it and the age
// shift at the pass's time is added when they are compared.
//
// The fair-share factor 2^(−usage·U/total) of a user rises only while
// the usage total grows faster than the user's own usage, and then by at
// most driftCoef·ln(total'/total) for every user alike (boundDrift).
// A bound computed when the total was T therefore stays a bound at any
// later time once FairShareWeight·driftCoef·ln(T'/T) is added, the same
// amount for every user. So a user's bound is stored as a key, the bound
// minus the drift term when it was computed, and the users are kept in a
// max-heap of keys per kind: the bound now is key + drift now. Nothing
// is recomputed as time passes. A pass visits the users of each heap in
// descending key order without changing the heap (a small frontier heap
// of the heap's nodes whose parents were visited), while their bound
// reaches the best job found. A visited user whose drifted bound exceeds
// its fresh one (its lists' first keys with exp2Upper of its factor now,
// a few operations) is deferred at the fresh bound, and its key lowered
// to it; the others, and deferred users whose fresh bound reaches the
// best job, are evaluated at their exact fair-share factor, which gives
// them a tight key. Keys change between passes only (settleBounds). A
// queued job raises its user's key; a job that starts or leaves only
// loosens it until the user is next visited.

// driftCoef is c in the drift bound: for every y ≥ 0 and totals
// 0 < T ≤ T', 2^(−y·T/T') − 2^(−y) ≤ c·ln(T'/T). With ρ = T/T' the left
// side is at most (1−ρ)·ρ^(ρ/(1−ρ)), which c·ln(1/ρ) exceeds for any
// c ≥ 1/e (TestDriftCoef checks it).
const driftCoef = 0.37

// boundsUsable reports whether bounds can be computed: they need weights
// that never make a term shrink with time.
func (s *Sim) boundsUsable() bool {
	pc := &s.cfg.Priority
	return pc.FairShareWeight >= 0 && (pc.AgeWeight == 0 || pc.AgeWeight > 0 && pc.MaxAgeSec > 0)
}

// ageShift is what the uncapped bounds leave out: the age term every
// uncapped job has gained since the index's base, now.
func (s *Sim) ageShift() float64 {
	pc := &s.cfg.Priority
	if pc.AgeWeight == 0 {
		return 0
	}
	return pc.AgeWeight * float64(s.now-s.idx.base) / float64(pc.MaxAgeSec)
}

// boundDrift returns the drift term now: FairShareWeight·driftCoef·ln of
// the usage total, in units that advanceUsage's rescaling does not
// reset, so it never decreases.
func (s *Sim) boundDrift() float64 {
	fsw := s.cfg.Priority.FairShareWeight
	if fsw == 0 || !s.boundsUsable() {
		return 0
	}
	x := s.idx
	if s.usageTotal != x.driftAt || s.usageLogScale != x.driftScale {
		x.driftAt, x.driftScale = s.usageTotal, s.usageLogScale
		x.drift = driftCoef * fsw * (math.Log(max(s.usageTotal, 0x1p-1022)) + s.usageLogScale)
	}
	return x.drift
}

// initBounds computes every active user's keys and builds the heaps, on
// the first pass after the index was built.
func (s *Sim) initBounds() {
	x := s.idx
	if x.bounded {
		return
	}
	x.bounded = true
	eb, d := s.entryBounder(), s.boundDrift()
	for k := range x.heaps {
		x.heaps[k].nodes = x.heaps[k].nodes[:0]
	}
	for _, i := range x.active {
		keys := s.userKeys(&x.users[i], eb, s.fsUpper(int(i)), d)
		for k := range x.heaps {
			x.heapPush(k, i, keys[k])
		}
	}
}

// userKeys returns the keys of user u's lists for a fair-share factor of
// at most fs now, when the drift term is d.
func (s *Sim) userKeys(u *userLists, eb entryBounder, fs, d float64) [2]float64 {
	keys := [2]float64{math.Inf(-1), math.Inf(-1)}
	for kind := listUncapped; kind < numLists; kind++ {
		if l := u.lists[kind]; len(l) > 0 {
			k := boundKind(kind)
			keys[k] = max(keys[k], eb.bound(l[0].key, kind, fs)-d)
		}
	}
	for k, v := range keys {
		if v != v { // NaN: no bound; evaluate the user every pass
			keys[k] = math.Inf(1)
		}
	}
	return keys
}

// settleBounds sets the keys the last pass gave: the lowered keys of the
// users it deferred, then the exact keys of the users it evaluated (no-op
// when there are none).
func (s *Sim) settleBounds() {
	x := s.idx
	for _, r := range x.recap { // before the evaluated users' keys, which are tighter
		if m := int(x.users[r.slot].bpos[r.k]); m >= 0 && r.key < x.heaps[r.k].nodes[m].key {
			x.heapSet(int(r.k), m, r.key)
		}
	}
	x.recap = x.recap[:0]
	for _, i := range x.evaluated {
		u := &x.users[i]
		for k := range x.heaps {
			if m := int(u.bpos[k]); m >= 0 {
				if x.heaps[k].nodes[m].key != u.fresh[k] {
					x.heapSet(k, m, u.fresh[k])
				}
			} else {
				x.heapPush(k, i, u.fresh[k])
			}
		}
	}
	x.evaluated = x.evaluated[:0]
}

// fsUpper returns an upper bound of user slot i's fair-share factor now
// (0 for the slot of jobs without a user, which get no fair-share term).
func (s *Sim) fsUpper(i int) float64 {
	if i == 0 || s.cfg.Priority.FairShareWeight == 0 {
		return 0
	}
	u := i - 1
	if u >= len(s.usage) || !(s.usageTotal > 0) {
		return 1
	}
	return exp2Upper(-s.usage[u] / s.usageTotal * s.fsUsers())
}

// entryBound returns the bound of a list entry of kind with key (and of
// every entry after it in its list) for a user whose fair-share factor
// is at most fs, with room for rounding: for a capped entry, its
// priority; for an uncapped one, that minus ageShift.
func (s *Sim) entryBound(key float64, kind uint8, fs float64) float64 {
	eb := s.entryBounder()
	return eb.bound(key, kind, fs)
}

// entryBounder is entryBound with what it reads of the simulation
// computed once, for many entries at one time.
type entryBounder struct {
	usable             bool
	age, fsw, shiftAbs float64
}

func (s *Sim) entryBounder() entryBounder {
	pc := &s.cfg.Priority
	return entryBounder{usable: s.boundsUsable(), age: pc.AgeWeight, fsw: pc.FairShareWeight, shiftAbs: math.Abs(s.ageShift())}
}

func (eb *entryBounder) bound(key float64, kind uint8, fs float64) float64 {
	if !eb.usable {
		return math.Inf(1) // every user is evaluated, as without bounds
	}
	b := key
	if isCapped(kind) {
		b += eb.age
	}
	b += eb.fsw * fs
	return b + boundSlack*(1+math.Abs(b)+eb.shiftAbs)
}

// boundSlack is the room a bound leaves for rounding, relative to the
// magnitudes involved (the bound and the age shift, which grows with the
// time since the index's base). A priority and its bound differ by a few
// roundings, about 1e-15 of those magnitudes: TestProperty_BoundsHold
// passes with 1e-13 and fails with 1e-15. A looser slack costs work on
// long traces: with 1e-6, a year into the overloaded 1,000-node
// synthetic trace (an age shift near 365,000), the slack of about 0.4
// priority points exceeded the gaps between many users' top jobs, and a
// main pass evaluated 2.1 users instead of 1.4.
const boundSlack = 1e-9

// exp2Steps is the number of table steps per octave of exp2Upper.
const (
	exp2Shift = 10
	exp2Steps = 1 << exp2Shift
)

// exp2Table holds 2^(r/exp2Steps) for r in [0, exp2Steps].
var exp2Table = func() (t [exp2Steps + 1]float64) {
	for r := range t {
		t[r] = math.Exp2(float64(r) / exp2Steps)
	}
	return t
}()

// exp2Upper returns an upper bound of 2^x for x <= 0, above it by less
// than one part in 10⁹, up to a few roundings (entryBound's slack covers
// them): 2^x = 2^(n/exp2Steps)·e^z with z = (x − n/exp2Steps)·ln 2 in
// [0, ln 2/exp2Steps], the first factor from a table and
// e^z ≤ 1 + z + z²/2 + z³. It is several times cheaper than math.Exp2,
// and exact for NaN and for x below -1000.
func exp2Upper(x float64) float64 {
	if !(x > -1000 && x <= 0) {
		return math.Exp2(x)
	}
	fl := math.Floor(x * exp2Steps) // exact: exp2Steps is a power of two
	z := (x-fl/exp2Steps)*math.Ln2 + 0x1p-60
	n := int64(fl)
	q, r := n>>exp2Shift, n&(exp2Steps-1) // n = q*exp2Steps + r, 0 <= r < exp2Steps
	return exp2Table[r] * math.Float64frombits(uint64(q+1023)<<52) * (1 + z + z*z*(0.5+z))
}

// raiseBound makes user slot i's bounds cover job id, newly queued.
func (s *Sim) raiseBound(i int, id JobID) {
	x := s.idx
	if !x.bounded {
		return // computed at the next pass
	}
	s.settleBounds()
	u := &x.users[i]
	if u.bpos[0] < 0 { // newly active
		for k := range x.heaps {
			x.heapPush(k, int32(i), math.Inf(-1))
		}
	}
	k := boundKind(x.where[id])
	b := s.entryBound(x.key[id], x.where[id], s.fsUpper(i)) - s.boundDrift()
	if b != b {
		b = math.Inf(1)
	}
	if m := int(u.bpos[k]); b > x.heaps[k].nodes[m].key {
		x.heapSet(k, m, b)
	}
}

// dropBound removes user slot i (no jobs left) from the heaps.
func (s *Sim) dropBound(i int) {
	x := s.idx
	u := &x.users[i]
	for k := range x.heaps {
		if p := u.bpos[k]; p >= 0 {
			x.heapRemove(k, int(p))
		}
	}
}
