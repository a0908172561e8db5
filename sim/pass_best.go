package sim

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
		lo := l[c].key - it.band(l[c].key)
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
