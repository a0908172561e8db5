package sim

import (
	"math"
	"slices"
)

// runEnd is a running job's planned release: start + time limit (Unix
// seconds), and its nodes.
type runEnd struct {
	at    int64
	nodes int
}

// profile is the backfill plan: free[k] nodes are available from times[k]
// until times[k+1] (the last step lasts forever). times[0] is now.
type profile struct {
	times []int64
	free  []int
}

// buildProfile plans from now: the free nodes, running jobs released at
// their time limit (rounded up to the resolution from now, as a job ending
// inside a slot blocks the whole slot), and future announced capacity
// steps. Unannounced steps are not known before they apply: the plan
// keeps the capacity in force now (or the last announced step) instead.
// With pred, a running job with a predicted run time (Job.PredRunSec)
// is released at its start plus that prediction while that is still
// ahead, and at its limit once it has outlived it.
func (s *Sim) buildProfile(pred bool) profile {
	res := s.cfg.Backfill.ResolutionSec
	ends := s.scratch.ends[:0]
	s.releases(pred, func(at int64, nodes int) {
		ends = append(ends, runEnd{at: s.now + ceilDiv(max(at-s.now, 0), res)*res, nodes: nodes})
	})
	slices.SortFunc(ends, func(a, b runEnd) int { return cmpInt64(a.at, b.at) })
	s.scratch.ends = ends
	p := profile{times: append(s.scratch.times[:0], s.now), free: append(s.scratch.free[:0], s.free())}
	for _, e := range ends {
		last := len(p.times) - 1
		if e.at == p.times[last] {
			p.free[last] += e.nodes
			continue
		}
		p.times = append(p.times, e.at)
		p.free = append(p.free, p.free[last]+e.nodes)
	}
	return p
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// releases calls add for every change of the free nodes the planner
// expects after now (Unix seconds, not rounded): each running job at its
// start plus its limit (with pred, plus its predicted run time while that
// is ahead), and each announced capacity step within the backfill window
// (the change from the capacity before it; unannounced steps are not
// known before they apply).
func (s *Sim) releases(pred bool, add func(at int64, nodes int)) {
	for i, r := range s.runRel {
		if pred {
			id := s.running[i]
			if pr, start := s.predRun(id), s.st.get(id).start; pr > 0 && start+pr > s.now {
				if s.jobs[id].timeMin == 0 {
					r.at = start + pr
				} else {
					r.at = min(start+pr, r.at) // its granted limit may come first
				}
			}
		}
		add(r.at, r.nodes)
	}
	capNow := s.capacity
	for k := s.capIdx; k < len(s.cfg.Capacity); k++ {
		c := s.cfg.Capacity[k]
		if c.At >= s.now+s.cfg.Backfill.WindowSec {
			break
		}
		if c.Unannounced {
			continue
		}
		add(c.At, c.Nodes-capNow)
		capNow = c.Nodes
	}
}

// planner is a backfill plan: slotPlan on the resolution grid, or
// profile (stepPlan) when the grid would be too fine.
type planner interface {
	// earliest returns the earliest start (Unix seconds) at which nodes
	// are free for dur seconds (or until the window's end), and false if
	// there is none in the window.
	earliest(nodes int, dur int64) (int64, bool)
	// reserve takes nodes over [at, at+dur); at is a start earliest gave.
	reserve(nodes int, at, dur int64)
	// freeNow returns the nodes free at now, after the reservations.
	freeNow() int
	// blockedAt returns the first time (Unix seconds) in the window at
	// which no node is free, and false if there is none. A job longer than
	// the time from now to it can neither start now nor be reserved
	// before it.
	blockedAt() (int64, bool)
	// shortAt returns the first time (Unix seconds) in the window at
	// which fewer than nodes are free, and false if there is none: how
	// far a job of that size starting now can run without delaying a
	// reservation (grantSec).
	shortAt(nodes int) (int64, bool)
}

// stepPlan adapts profile to planner.
type stepPlan struct {
	p       profile
	limitAt int64
}

func (s *stepPlan) earliest(nodes int, dur int64) (int64, bool) {
	k, ok := s.p.earliest(nodes, dur, s.limitAt)
	if !ok {
		return 0, false
	}
	return s.p.times[k], true
}

func (s *stepPlan) reserve(nodes int, at, dur int64) { s.p.reserve(nodes, at, at+dur) }

func (s *stepPlan) freeNow() int { return s.p.free[0] }

func (s *stepPlan) blockedAt() (int64, bool) {
	for k := 0; k < len(s.p.times) && s.p.times[k] < s.limitAt; k++ {
		if s.p.free[k] < 1 {
			return s.p.times[k], true
		}
	}
	return 0, false
}

// newPlan returns the plan from now over the backfill window (the
// configuration's resolution and window), with predicted run times when
// pred (see buildProfile). The plan is scratch space: one at a time.
func (s *Sim) newPlan(pred bool) planner {
	res, window := s.cfg.Backfill.ResolutionSec, s.cfg.Backfill.WindowSec
	if slots := ceilDiv(window, res); slots <= maxPlanSlots && !s.forceSteps {
		p := s.buildSlots(pred, int(slots))
		s.blockPlan(p, window)
		return p
	}
	sp := &s.scratch.steps
	sp.p, sp.limitAt = s.buildProfile(pred), s.now+window
	s.blockPlan(sp, window)
	return sp
}

// buildSlots is buildProfile on the resolution grid.
func (s *Sim) buildSlots(pred bool, slots int) *slotPlan {
	res := s.cfg.Backfill.ResolutionSec
	free := s.scratch.free[:0]
	for range slots + 1 {
		free = append(free, 0)
	}
	s.releases(pred, func(at int64, nodes int) {
		if k := ceilDiv(max(at-s.now, 0), res); k < int64(slots) {
			free[k] += nodes
		}
	})
	sum, zero := s.free(), slots
	for k := range slots {
		sum += free[k]
		free[k] = sum
		if sum < 1 {
			zero = min(zero, k)
		}
	}
	s.scratch.free = free
	p := &s.scratch.slots
	p.now, p.res, p.free, p.failed, p.zero = s.now, res, free[:slots], p.failed[:0], zero
	p.forgetHints()
	return p
}

// earliest returns the first step k whose start time is before limitAt
// and from which nodes are free until times[k]+dur (or until limitAt,
// the end of the window), and false if there is none. A step m that is
// too small rules out every start from k to m (their spans all contain
// it), so the search resumes after m: linear in the profile.
func (p *profile) earliest(nodes int, dur, limitAt int64) (int, bool) {
	for k := 0; k < len(p.times) && p.times[k] < limitAt; k++ {
		if p.free[k] < nodes {
			continue
		}
		end := min(p.times[k]+dur, limitAt)
		blocked := -1
		for m := k + 1; m < len(p.times) && p.times[m] < end; m++ {
			if p.free[m] < nodes {
				blocked = m
				break
			}
		}
		if blocked < 0 {
			return k, true
		}
		k = blocked // the loop resumes at blocked+1
	}
	return 0, false
}

// reserve takes nodes over [from, to).
func (p *profile) reserve(nodes int, from, to int64) {
	a := p.split(from)
	b := p.split(to)
	for k := a; k < b; k++ {
		p.free[k] -= nodes
	}
}

// split makes t a step boundary and returns its index.
func (p *profile) split(t int64) int {
	k, found := slices.BinarySearch(p.times, t)
	if found {
		return k
	}
	// k > 0: t is after times[0] == now.
	p.times = slices.Insert(p.times, k, t)
	p.free = slices.Insert(p.free, k, p.free[k-1])
	return k
}

// backfillPass plans the queue in priority order (at most MaxJobTest
// jobs): each job's earliest start within the window on the profile;
// jobs that can start now start; conservative gives every other planned
// job a reservation, EASY only the first. It reports whether it started a
// job.
func (s *Sim) backfillPass() bool {
	bf := &s.cfg.Backfill
	p := s.newPlan(false)
	reserved, tested, started := false, 0, false
	var perUser []int // jobs tested per user (bf_max_job_user)
	if bf.MaxJobUser > 0 {
		perUser = s.scratch.perUser[:0]
		for range s.users {
			perUser = append(perUser, 0)
		}
		s.scratch.perUser = perUser
	}
	// Skipped jobs are counted in bulk where nothing else depends on each
	// of them: no per-user limits.
	bulk := !s.noSkipRun && bf.MaxJobUser == 0 && s.cfg.Limits.MaxJobsPerUser <= 0 && s.cfg.Limits.MaxNodesPerUser <= 0
	it := s.byPriority()
	for id, _, ok := it.next(); ok; id, _, ok = it.next() {
		if tested >= bf.MaxJobTest && bf.MaxJobTest > 0 {
			break
		}
		if min(p.freeNow(), s.free()) < 1 && !s.reference {
			// Every job needs a node from now: none of the rest can
			// start, and the pass changes nothing but its plan.
			s.work.BackfillStopped++
			break
		}
		if s.overLimit(id) {
			continue
		}
		if bf.MaxJobUser > 0 && s.jobs[id].User >= 0 {
			u := s.jobs[id].User
			if perUser[u] >= bf.MaxJobUser {
				continue
			}
			perUser[u]++
		}
		tested++
		s.work.BackfillTested++
		nodes, limit := it.job()
		dur := ceilDiv(limit, bf.ResolutionSec) * bf.ResolutionSec
		if b, ok := p.blockedAt(); ok && s.now+dur > b && (bf.Flavour == BackfillConservative || reserved) && !s.reference {
			// It cannot start now, and its reservation would come after
			// b: where no job that could still start now looks (those
			// end by b), so it changes no decision of this pass.
			s.work.BackfillSkipped++
			if bulk {
				// The jobs after it that the pass would skip the same
				// way, counted in one step (skipRun).
				budget := math.MaxInt
				if bf.MaxJobTest > 0 {
					budget = bf.MaxJobTest - tested
				}
				n := it.skipRun((b-s.now)/bf.ResolutionSec*bf.ResolutionSec, budget)
				tested += n
				s.work.BackfillTested += int64(n)
				s.work.BackfillSkipped += int64(n)
				s.bulkSkipped += int64(n)
			}
			continue
		}
		at, ok := p.earliest(int(nodes), dur)
		if !ok {
			continue
		}
		switch {
		case at == s.now && int(nodes) <= s.free() && !s.sync.crosses(s.now, limit):
			granted := s.jobs[id].LimitSec
			if limit < granted { // a time-min: raise it as far as delays no reservation
				granted = grantSec(p, s.now, int(nodes), limit, granted)
				dur = ceilDiv(granted, bf.ResolutionSec) * bf.ResolutionSec
			}
			s.start(id, granted)
			started = true
			p.reserve(int(nodes), at, dur)
		case bf.Flavour == BackfillConservative || !reserved:
			p.reserve(int(nodes), at, dur)
			reserved = true
		}
	}
	s.work.BackfillPasses++
	s.work.BackfillMaxTested = max(s.work.BackfillMaxTested, tested)
	return started
}

// EstimatedStart returns when the backfill planner would start j if it
// were submitted now, the way `squeue --start` reports it: every pending
// job of higher priority is planned first (conservatively), then j. It
// returns false when j fits nowhere in the backfill window. The
// simulation is not changed.
func (s *Sim) EstimatedStart(j Job) (int64, bool) {
	return s.estimatedStart(j, false)
}

// EstimatedStartPredicted is EstimatedStart with predicted run times
// (Job.PredRunSec, see PredictRunTimes) in place of time limits for the
// running and pending jobs (buildProfile's pred); j itself is planned
// with its limit, as a service job runs to it.
func (s *Sim) EstimatedStartPredicted(j Job) (int64, bool) {
	return s.estimatedStart(j, true)
}

func (s *Sim) estimatedStart(sj Job, pred bool) (int64, bool) {
	j := row(&sj, nameRef{})
	if err := s.check(&j); err != nil {
		return 0, false
	}
	s.normalise(&j)
	res := s.cfg.Backfill.ResolutionSec
	window := s.cfg.Backfill.WindowSec
	if res <= 0 || window <= 0 { // no backfill configured: plan with 1 s and 2 days
		res, window = 1, 2*86400
	}
	saved := s.cfg.Backfill
	s.cfg.Backfill.ResolutionSec, s.cfg.Backfill.WindowSec = res, window
	defer func() { s.cfg.Backfill = saved }()
	p := s.newPlan(pred)
	// j's priority as a new submission: age 0.
	total := s.usageTotal
	mine := s.cfg.Priority.SizeWeight * float64(j.Nodes) / float64(s.cfg.Nodes)
	if fw := s.cfg.Priority.FairShareWeight; fw != 0 && j.User >= 0 && int(j.User) < s.users {
		fs := 1.0
		if total > 0 {
			fs = exp2(-s.usage[j.User] / total * s.fsUsers())
		}
		mine += fw * fs
	} else if fw != 0 && j.User >= 0 {
		mine += fw // a user without usage yet: 2^0
	}
	plan := func(nodes int32, limit int64) (int64, bool) {
		dur := ceilDiv(limit, res) * res
		at, ok := p.earliest(int(nodes), dur)
		if !ok {
			return 0, false
		}
		p.reserve(int(nodes), at, dur)
		return at, true
	}
	it := s.byPriority()
	for id, p, ok := it.next(); ok; id, p, ok = it.next() {
		if p < mine {
			break
		}
		if s.overLimit(id) {
			continue
		}
		pj := &s.jobs[id]
		d := pj.planSec()
		if pr := s.predRun(id); pred && pr > 0 {
			if pj.timeMin == 0 {
				d = pr
			} else {
				d = min(pr, d) // planned with its time-min at most
			}
		}
		plan(pj.Nodes, d)
	}
	return plan(j.Nodes, j.planSec())
}
