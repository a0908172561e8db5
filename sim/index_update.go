package sim

import (
	"cmp"
	"slices"
)

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
	e := entry{key: key, from: from, submit: s.jobs[id].Submit, limit: s.jobs[id].planSec(), id: id, nodes: s.jobs[id].Nodes}
	i, _ := s.searchList(l, e, true) // a new job's key is its list's smallest, or near it
	u.lists[kind] = slices.Insert(l, i, e)
	u.insertRun(kind, i)
	if kind == listRecent && len(u.lists[kind]) > max(64, len(u.lists[listCapped])/8) {
		s.mergeRecent(u)
	}
	s.raiseBound(s.slot(id), id)
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
