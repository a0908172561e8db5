package sim

import (
	"math"
	"slices"
)

// Upper bounds on each user's best priority let a pass look at only the
// users near the top instead of all of them: a pass evaluates users (at
// their exact priority, as before) in descending order of their bounds
// and stops as soon as the best job found so far is at least the next
// bound, since no user further down can beat it. The main pass usually
// needs one job, so it costs O(k log k) for the k users whose bounds
// reach the top job's priority, not O(U).
//
// A user has two bounds, one per list (uncapped, capped), from the list's
// first entry (the largest key) and the largest fair-share factor the
// user can reach before boundUntil: from its usage now and the most that
// all users together can add until then (busy nodes never exceed the
// largest capacity, and usage never decreases in advanceUsage's units).
// A capped job's priority does not grow with time; an uncapped job's age
// term grows at the same rate for every job, so the uncapped bounds are
// kept without it and ordered once: the age term at the pass's time is
// added when they are compared. Bounds are recomputed when they expire
// (every boundHorizonSec while passes run) and raised when a job is
// queued; a job that starts or leaves only makes its user's bound looser.

// boundHorizonSec is how long fair-share bounds hold (seconds): longer
// means fewer recomputations (O(U log U) each) and looser bounds.
const boundHorizonSec = 300

// boundOrder is the active user slots by one of their bounds, descending.
type boundOrder struct {
	slots []int32
}

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

// refreshBounds recomputes every active user's bounds when they expired
// (or were never computed) and orders the users by them.
func (s *Sim) refreshBounds() {
	x := s.idx
	if x.bounded && s.now <= x.boundUntil {
		return
	}
	x.bounded, x.boundUntil = true, s.now+boundHorizonSec
	x.totalMax = s.usageTotal
	if hl := s.cfg.Priority.DecayHalfLifeSec; s.cfg.Priority.FairShareWeight != 0 {
		nmax := s.cfg.Nodes
		for _, c := range s.cfg.Capacity {
			nmax = max(nmax, c.Nodes)
		}
		w := math.Exp2(float64(x.boundUntil-s.usageT0) / float64(hl))
		x.totalMax += float64(nmax) * float64(x.boundUntil-s.usageAt) * w
		if hl <= 0 || math.IsNaN(x.totalMax) {
			x.totalMax = math.Inf(1) // no bound on usage: fair-share up to 1
		}
	}
	first := len(x.orders[0].slots) == 0 // otherwise the orders hold the active users, by their old bounds
	if first {
		for k := range x.orders {
			x.orders[k].slots = append(x.orders[k].slots, x.active...)
		}
	}
	eb := s.entryBounder()
	for _, i := range x.orders[0].slots {
		u := &x.users[i]
		u.fsMax = s.fairShareMax(int(i))
		u.bound = [2]float64{math.Inf(-1), math.Inf(-1)}
		for kind := listUncapped; kind < numLists; kind++ {
			if l := u.lists[kind]; len(l) > 0 {
				k := boundKind(kind)
				u.bound[k] = max(u.bound[k], eb.bound(l[0].key, kind, u.fsMax))
			}
		}
	}
	for k := range x.orders {
		o := x.orders[k].slots
		if first {
			slices.SortFunc(o, func(a, b int32) int { return x.cmpBound(k, a, b) })
		} else { // bounds move little between refreshes: nearly sorted
			for m := 1; m < len(o); m++ {
				for j := m; j > 0 && x.cmpBound(k, o[j-1], o[j]) > 0; j-- {
					o[j-1], o[j] = o[j], o[j-1]
				}
			}
		}
		for m, i := range o {
			x.users[i].bpos[k] = int32(m)
		}
	}
}

// cmpBound orders user slots by bound k descending, then slot.
func (x *prioIndex) cmpBound(k int, a, b int32) int {
	ba, bb := x.users[a].bound[k], x.users[b].bound[k]
	switch {
	case ba > bb:
		return -1
	case ba < bb:
		return 1
	}
	return cmpInt64(int64(a), int64(b))
}

// fairShareMax returns the largest fair-share factor user slot i can
// reach until boundUntil (0 for the slot of jobs without a user, which
// get no fair-share term).
func (s *Sim) fairShareMax(i int) float64 {
	x := s.idx
	if i == 0 || s.cfg.Priority.FairShareWeight == 0 {
		return 0
	}
	u := i - 1
	if u >= len(s.usage) || x.totalMax <= 0 {
		return 1
	}
	return exp2Upper(-s.usage[u] / x.totalMax * float64(s.users))
}

// entryBound returns the bound of a list entry of kind with key (and of
// every entry after it in its list) for a user whose fair-share factor
// stays below fsMax, with room for rounding: for a capped entry, its
// priority until boundUntil; for an uncapped one, that minus ageShift.
func (s *Sim) entryBound(key float64, kind uint8, fsMax float64) float64 {
	eb := s.entryBounder()
	return eb.bound(key, kind, fsMax)
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

func (eb *entryBounder) bound(key float64, kind uint8, fsMax float64) float64 {
	if !eb.usable {
		return math.Inf(1) // every user is evaluated, as without bounds
	}
	b := key
	if isCapped(kind) {
		b += eb.age
	}
	b += eb.fsw * fsMax
	return b + 1e-6*(1+math.Abs(b)+eb.shiftAbs)
}

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

// exp2Upper returns an upper bound of 2^x for x <= 0, above it by at
// most a factor 2^(1/exp2Steps) (0.07 %), up to one rounding of the
// table's values (entryBound's slack covers it): a fair-share bound
// needs no more, and a table step is several times cheaper than
// math.Exp2. It is exact for NaN and for x below -1000.
func exp2Upper(x float64) float64 {
	if !(x > -1000 && x <= 0) {
		return math.Exp2(x)
	}
	n := int64(math.Floor(x*exp2Steps)) + 1 // 2^x <= 2^(n/exp2Steps), rounding of x*exp2Steps included
	q, r := n>>exp2Shift, n&(exp2Steps-1)   // n = q*exp2Steps + r, 0 <= r < exp2Steps
	return exp2Table[r] * math.Float64frombits(uint64(q+1023)<<52)
}

// raiseBound makes user slot i's bounds cover job id, newly queued.
func (s *Sim) raiseBound(i int, id JobID) {
	x := s.idx
	if !x.bounded {
		return // computed at the next pass
	}
	u := &x.users[i]
	if u.bpos[0] < 0 { // newly active
		u.fsMax = s.fairShareMax(i)
		for k := range x.orders {
			u.bound[k] = math.Inf(-1)
			x.orders[k].place(x, k, i, len(x.orders[k].slots))
		}
	}
	k := boundKind(x.where[id])
	if b := s.entryBound(x.key[id], x.where[id], u.fsMax); b > u.bound[k] {
		p := int(u.bpos[k])
		x.orders[k].slots = slices.Delete(x.orders[k].slots, p, p+1)
		u.bound[k] = b
		x.orders[k].place(x, k, i, p)
	}
}

// place inserts slot i at its position by bound k and renumbers the slots
// from there or from renumber (a position something was removed at),
// whichever comes first.
func (o *boundOrder) place(x *prioIndex, k, i, renumber int) {
	at, _ := slices.BinarySearchFunc(o.slots, int32(i), func(e, t int32) int { return x.cmpBound(k, e, t) })
	o.slots = slices.Insert(o.slots, at, int32(i))
	for m := min(at, renumber); m < len(o.slots); m++ {
		x.users[o.slots[m]].bpos[k] = int32(m)
	}
}

// dropBound removes user slot i (no jobs left) from the bound orders.
func (s *Sim) dropBound(i int) {
	x := s.idx
	u := &x.users[i]
	for k := range x.orders {
		p := int(u.bpos[k])
		if p < 0 {
			continue
		}
		o := &x.orders[k]
		o.slots = slices.Delete(o.slots, p, p+1)
		for m := p; m < len(o.slots); m++ {
			x.users[o.slots[m]].bpos[k] = int32(m)
		}
		u.bpos[k] = -1
	}
}
