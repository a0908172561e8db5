package sim

// A backfill pass on a deep queue spends most of its time on jobs it
// skips: once the plan has no free node from some time b on, a job too
// long to end by b cannot start now, and its reservation (after b)
// changes no decision of the pass; the pass only counts it towards
// bf_max_job_test. Such jobs come in long streaks of one user: every
// capped job of a user and size has the same priority. skipRun counts a
// streak in one scan of the user's list instead of one priority-queue
// step per job, with exactly the sequential pass's result: the same jobs
// are counted, in the same order, and the pass stops at the same job.

// skipRun consumes the next jobs of the pass that are long (time limit
// above maxShort seconds: the pass skips them) while they are, in exact
// priority order, the top user's next jobs in one of its lists, up to
// budget jobs. It returns how many it consumed; the next call of next
// returns the job after them. It stops early, leaving the rest to next,
// wherever list order might differ from exact order by rounding.
func (it *passIter) skipRun(maxShort int64, budget int) int {
	if it.ref {
		return 0
	}
	x := it.s.idx
	consumed := 0
	for consumed < budget {
		it.evaluate()
		if len(it.heap) == 0 {
			break
		}
		i := it.heap[0]
		at := it.pos[i]
		u := &x.users[i]
		if it.cand[i].limit <= maxShort || int(at.m) != u.cur[at.k] {
			break // a job the pass plans, or one chosen from inside a band
		}
		// The runner-up: the best of the other users' candidates (the
		// heap root's children), of this user's other lists, and of the
		// users not evaluated yet (below their bound).
		ru, ruP, haveRU := entry{}, 0.0, false
		for _, c := range []int{1, 2} {
			if c < len(it.heap) {
				j := it.heap[c]
				if !haveRU || before(&it.cand[j], it.prio[j], &ru, ruP) {
					ru, ruP, haveRU = it.cand[j], it.prio[j], true
				}
			}
		}
		var e entry
		var p float64
		var pos listPos
		if it.best(int(i), at.k, &e, &p, &pos) && (!haveRU || before(&e, p, &ru, ruP)) {
			ru, ruP, haveRU = e, p, true
		}
		nk, nb := it.nextBound()
		n := it.consume(int(i), at.k, maxShort, budget-consumed, ru, ruP, haveRU, nk >= 0, nb)
		if n == 0 {
			break
		}
		consumed += n
		// The user's next candidate, as next does after taking a job.
		if !it.advance(int(i)) {
			last := len(it.heap) - 1
			it.heap[0] = it.heap[last]
			it.heap = it.heap[:last]
		}
		if len(it.heap) > 0 {
			it.down(0)
		}
	}
	return consumed
}

// consume takes, from the cursor of slot i's list k on, the entries that
// are long (limit above maxShort), before the runner-up (ru, priority
// ruP, when haveRU), above the bound nb of the unevaluated users (when
// haveNB), and not within rounding of a later entry of the list, at most
// max of them; taken and stale entries in between are passed. It returns
// how many it took.
func (it *passIter) consume(i int, k uint8, maxShort int64, max int, ru entry, ruP float64, haveRU, haveNB bool, nb float64) int {
	x := it.s.idx
	u := &x.users[i]
	l := u.lists[k]
	fs := it.fs[i]
	gen := x.gen
	n, m := 0, nextLive(l, u.cur[k], gen)
	var prev *entry // the entry taken last: one with its inputs has its priority p
	p := 0.0
	for m < len(l) && n < max {
		e := &l[m]
		if e.limit <= maxShort {
			break
		}
		if prev == nil || !sameInputs(e, prev, k) {
			p = it.priority(e, k, fs)
			if haveNB && !(p > nb) || haveRU && !before(e, p, &ru, ruP) {
				break
			}
		} else if haveRU && p == ruP && !before(e, p, &ru, ruP) {
			// prev's priority passed both tests: only a tie with the
			// runner-up, broken by submission and ID, can differ.
			break
		}
		// The next live entry must come after e in exact order too: with
		// the same inputs (then list order is exact order) or far enough
		// below it.
		nx := nextLive(l, m+1, gen)
		if nx < len(l) && !sameInputs(e, &l[nx], k) && l[nx].key >= e.key-it.band(e.key) {
			break
		}
		e.taken = gen
		n++
		prev, m = e, nx
	}
	if n > 0 {
		u.cur[k] = m
	}
	return n
}

// nextLive returns the index of the first entry of l from m on that is
// neither stale nor taken in the pass of generation gen (len(l) if none).
func nextLive(l []entry, m int, gen uint32) int {
	for m < len(l) && (l[m].dead || l[m].taken == gen) {
		m++
	}
	return m
}
