package sim

// step processes everything that happens at time t: events in (kind, seq)
// order, trace arrivals after ends and before external submissions, then
// the main scheduling pass if anything changed and the backfill pass when
// due. Jobs of zero run time started by a pass end at t too, so it loops
// until nothing is left at t.
func (s *Sim) step(t int64) {
	s.advanceUsage(t)
	s.now = t
	if s.nextBF < t {
		s.nextBF = s.alignBF(t)
	}
	for {
		if s.drain(t) {
			s.bfIdle, s.mainDue = false, true
		}
		if s.mainDue && s.alignMain(t) == t {
			s.mainDue = false
			s.mainPass()
		}
		if s.cfg.Backfill.Flavour != BackfillNone && s.nextBF <= t {
			if len(s.pending) > 0 && !s.backfillPass() {
				s.bfIdle = true
			}
			s.nextBF = s.alignBF(t + 1)
		}
		if len(s.events) == 0 || s.events[0].at > t {
			return
		}
	}
}

// alignMain returns the first main pass time >= t: t itself for an
// event-driven main pass (MainIntervalSec 0).
func (s *Sim) alignMain(t int64) int64 {
	iv := s.cfg.MainIntervalSec
	if iv <= 0 {
		return t
	}
	return (floorDiv(t-1, iv) + 1) * iv
}

// alignBF returns the first backfill time >= t.
func (s *Sim) alignBF(t int64) int64 {
	iv := s.cfg.Backfill.IntervalSec
	if iv <= 0 {
		return t
	}
	return (floorDiv(t-1, iv) + 1) * iv
}

// drain handles the events and arrivals due at or before t and reports
// whether any happened.
func (s *Sim) drain(t int64) bool {
	any := s.applyCapacityUntil(t)
	if s.sync.on {
		if s.sync.nextAfter(s.sync.seen) <= t {
			any = true
			s.sync.misses++
		}
		s.sync.seen = t
	}
	for len(s.events) > 0 && s.events[0].at <= t && s.events[0].kind < eventJobSubmit {
		s.handle(s.events.pop())
		any = true
	}
	for s.next < len(s.arrivals) && s.jobs[s.arrivals[s.next]].Submit <= t {
		s.nevents++
		s.submit(s.arrivals[s.next])
		s.next++
		any = true
	}
	for len(s.events) > 0 && s.events[0].at <= t {
		s.handle(s.events.pop())
		any = true
	}
	return any
}

// applyCapacityUntil applies the capacity steps due at or before t.
func (s *Sim) applyCapacityUntil(t int64) bool {
	any := false
	for s.capIdx < len(s.cfg.Capacity) && s.cfg.Capacity[s.capIdx].At <= t {
		s.capacity = s.cfg.Capacity[s.capIdx].Nodes
		s.capIdx++
		s.nevents++
		any = true
	}
	return any
}

func (s *Sim) handle(e event) {
	s.nevents++
	switch e.kind {
	case eventJobEnd:
		s.finish(e.job)
	case eventJobLeave:
		s.leave(e.job)
	case eventJobSubmit:
		s.submit(e.job)
	case eventJobEligible:
		s.makeEligible(e.job)
	}
}

// submit queues a job, or holds it until it is eligible.
func (s *Sim) submit(id JobID) {
	j := &s.jobs[id]
	st := s.st.mut(id)
	if j.Cancel > 0 {
		s.push(max(j.Cancel, s.now), eventJobLeave, id)
	}
	st.status = statusHeld
	s.see(j.User)
	if j.After != NoJob && !s.ended(j.After) {
		return // released by the predecessor's end
	}
	if j.Eligible > s.now {
		s.push(j.Eligible, eventJobEligible, id)
		return
	}
	s.enqueue(id)
}

func (s *Sim) ended(id JobID) bool {
	st := s.st.get(id).status
	return st == statusDone || st == statusLeft
}

func (s *Sim) enqueue(id JobID) {
	st := s.st.mut(id)
	st.status = statusPending
	st.elig = s.now
	st.pos = int32(len(s.pending))
	s.pending = append(s.pending, id)
	s.work.MaxPending = max(s.work.MaxPending, len(s.pending))
	s.indexAdd(id)
}

// unqueue removes a pending job from the queue (it starts or leaves) in
// constant time: the last pending job takes its place.
func (s *Sim) unqueue(id JobID) {
	i := s.st.get(id).pos
	last := s.pending[len(s.pending)-1]
	s.pending[i] = last
	s.st.mut(last).pos = i
	s.pending = s.pending[:len(s.pending)-1]
	s.indexRemove(id)
}

// makeEligible queues a held job whose Eligible time has come.
func (s *Sim) makeEligible(id JobID) {
	j := &s.jobs[id]
	if s.st.get(id).status != statusHeld || j.After != NoJob && !s.ended(j.After) {
		return
	}
	s.enqueue(id)
}

// release queues the held jobs that waited for id.
func (s *Sim) release(id JobID) {
	for _, d := range s.dependents[id] {
		if s.st.get(d).status != statusHeld {
			continue
		}
		if e := s.jobs[d].Eligible; e > s.now {
			s.push(e, eventJobEligible, d)
			continue
		}
		s.enqueue(d)
	}
}

// start runs a pending job now under the time limit limitSec (its
// LimitSec, or what backfill granted a job with a time-min): it ends
// after its run time or at that limit, whichever comes first.
func (s *Sim) start(id JobID, limitSec int64) {
	s.unqueue(id)
	st := s.st.mut(id)
	st.status, st.start = statusRunning, s.now
	s.sync.misses = 0
	if limitSec != s.jobs[id].LimitSec {
		s.granted = append(s.granted, grant{id: id, limitSec: limitSec})
	}
	s.addRunning(id, limitSec)
	s.push(s.now+min(s.runSec(id), limitSec), eventJobEnd, id)
	s.rec.Started(id, s.now)
}

func (s *Sim) finish(id JobID) {
	st := s.st.mut(id)
	st.status, st.end = statusDone, s.now
	s.dropRunning(id)
	s.rec.Finished(id, s.now)
	s.release(id)
}

// leave drops a job cancelled while pending (or held).
func (s *Sim) leave(id JobID) {
	st := s.st.mut(id)
	switch st.status {
	case statusPending:
		s.unqueue(id)
	case statusHeld:
	default:
		return
	}
	st.status, st.end = statusLeft, s.now
	s.rec.Left(id, s.now)
	s.release(id)
}

// addRunning counts a job that starts running under the time limit
// limitSec: busy nodes, its user's running jobs and nodes, and the
// running list.
func (s *Sim) addRunning(id JobID, limitSec int64) {
	j := &s.jobs[id]
	s.busy += int(j.Nodes)
	if u := j.User; u >= 0 {
		s.userJobs[u]++
		if s.userNodes[u] == 0 {
			s.busyPos[u] = int32(len(s.busyUsers))
			s.busyUsers = append(s.busyUsers, u)
		}
		s.userNodes[u] += j.Nodes
	}
	st := s.st.mut(id)
	st.pos = int32(len(s.running)) // a running job's index in running
	s.running = append(s.running, id)
	s.runRel = append(s.runRel, runEnd{at: st.start + limitSec, nodes: int(j.Nodes)})
}

// dropRunning undoes addRunning for a job that ended.
func (s *Sim) dropRunning(id JobID) {
	j := &s.jobs[id]
	s.busy -= int(j.Nodes)
	if u := j.User; u >= 0 {
		s.userJobs[u]--
		s.userNodes[u] -= j.Nodes
		if s.userNodes[u] == 0 { // the last busy user takes its place
			i, last := s.busyPos[u], s.busyUsers[len(s.busyUsers)-1]
			s.busyUsers[i], s.busyPos[last] = last, i
			s.busyUsers = s.busyUsers[:len(s.busyUsers)-1]
			s.busyPos[u] = -1
		}
	}
	i, n := s.st.get(id).pos, len(s.running)-1 // the last one takes its place
	last := s.running[n]
	s.running[i], s.runRel[i] = last, s.runRel[n]
	s.st.mut(last).pos = i
	s.running, s.runRel = s.running[:n], s.runRel[:n]
}
