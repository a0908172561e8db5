package sim

import (
	"math"
	"slices"
)

// scratch holds buffers reused across passes.
type scratch struct {
	order   []JobID
	prio    []float64
	iter    passIter
	slots   slotPlan
	steps   stepPlan
	perUser []int
	fs      []float64 // per user: fair-share factor of generation fsGen
	fsGen   []uint64
	gen     uint64
	times   []int64
	free    []int
	ends    []runEnd
}

// advanceUsage brings fair-share usage up to t. Usage decays with the
// half-life; only ratios of usages matter for the fair-share factor, so it
// is kept in units that grow by 2^((t - usageT0)/half-life) instead of
// decaying every user at every step: running jobs add nodes x seconds x
// that weight, and all values are rescaled when the weight gets large.
func (s *Sim) advanceUsage(t int64) {
	dt := t - s.usageAt
	if dt <= 0 || s.cfg.Priority.FairShareWeight == 0 {
		s.usageAt = max(s.usageAt, t)
		return
	}
	hl := float64(s.cfg.Priority.DecayHalfLifeSec)
	w := math.Exp2(float64(t-s.usageT0) / hl)
	if w > 0x1p400 {
		for u := range s.usage {
			s.usage[u] /= w
		}
		s.usageTotal /= w
		s.usageLogScale += math.Log(w)
		s.usageT0, w = t, 1
	}
	// Locals keep the total in a register: the same additions, in the
	// same order, as adding to the field.
	usage, nodes, total, fdt := s.usage, s.userNodes, s.usageTotal, float64(dt)
	for _, u := range s.busyUsers {
		add := float64(nodes[u]) * fdt * w
		usage[u] += add
		total += add
	}
	s.usageTotal = total
	s.usageAt = t
}

// priorityOf returns a pending job's multifactor priority now.
func (s *Sim) priorityOf(id JobID, totalUsage float64) float64 {
	j := &s.jobs[id]
	from := s.st.get(id).elig
	if s.cfg.AgeFromSubmit {
		from = j.Submit
	}
	fs := -1.0
	if s.cfg.Priority.FairShareWeight != 0 && j.User >= 0 {
		fs = s.fairShare(j.User, totalUsage)
	}
	return s.priorityFrom(j.Nodes, from, fs)
}

// priorityFrom is priorityOf from the job's inputs: its nodes, when its
// age starts (Unix seconds) and its user's fair-share factor (negative:
// no fair-share term). Every priority is computed here, so equal inputs
// give the same float.
func (s *Sim) priorityFrom(nodes int32, from int64, fs float64) float64 {
	pc := &s.cfg.Priority
	p := pc.SizeWeight * float64(nodes) / float64(s.cfg.Nodes)
	if pc.AgeWeight != 0 {
		age := float64(s.now-from) / float64(pc.MaxAgeSec)
		if !pc.AgeUncapped {
			age = min(age, 1)
		}
		p += pc.AgeWeight * age
	}
	if fs >= 0 {
		p += pc.FairShareWeight * fs
	}
	return p
}

// priorityCapped is priorityFrom for a job whose age reached the cap,
// from its size term (sizeTerm, a capped list's key): its age factor is
// exactly 1, so no division is needed, and the float is priorityFrom's.
func (s *Sim) priorityCapped(size, fs float64) float64 {
	pc := &s.cfg.Priority
	p := size + pc.AgeWeight
	if fs >= 0 {
		p += pc.FairShareWeight * fs
	}
	return p
}

// order returns the pending jobs by descending priority, then submission,
// then ID: a total order, so passes are deterministic. The slice is
// scratch space, valid until the next call.
func (s *Sim) order() []JobID {
	n := len(s.pending)
	s.computePriorities()
	prio := s.scratch.prio
	s.scratch.order = append(s.scratch.order[:0], s.pending...)
	order := s.scratch.order[:n]
	slices.SortFunc(order, func(a, b JobID) int {
		if prio[a] != prio[b] {
			if prio[a] > prio[b] {
				return -1
			}
			return 1
		}
		if c := cmpInt64(s.jobs[a].Submit, s.jobs[b].Submit); c != 0 {
			return c
		}
		return cmpInt64(int64(a), int64(b))
	})
	return order
}

// ghost reports whether a job only waits to leave the queue (a job that
// never ran in the trace, under CancelLeave): it never starts or blocks.
func (s *Sim) ghost(id JobID) bool { return s.jobs[id].Cancel > 0 }

// overLimit reports whether starting the job would break a per-user limit.
func (s *Sim) overLimit(id JobID) bool {
	l := &s.cfg.Limits
	if l.MaxJobsPerUser <= 0 && l.MaxNodesPerUser <= 0 {
		return false // no limits: the job need not be read
	}
	j := &s.jobs[id]
	if j.User < 0 {
		return false
	}
	if l.MaxJobsPerUser > 0 && int(s.userJobs[j.User]) >= l.MaxJobsPerUser {
		return true
	}
	return l.MaxNodesPerUser > 0 && int(s.userNodes[j.User]+j.Nodes) > l.MaxNodesPerUser
}

// free returns the nodes available now (negative while capacity is below
// the busy nodes).
func (s *Sim) free() int { return s.capacity - s.busy }

// mainPass walks the queue in priority order, starting jobs while they fit
// and stopping at the first that does not (head-of-line blocking). Jobs
// over a per-user limit, and ghosts, are skipped.
func (s *Sim) mainPass() {
	if len(s.pending) == 0 || s.free() < 1 { // every job needs a node: the first one would block
		return
	}
	s.work.MainPasses++
	it := s.byPriority()
	for id, _, ok := it.next(); ok; id, _, ok = it.next() {
		s.work.MainTested++
		if s.overLimit(id) {
			continue
		}
		// The main pass starts a job with its full limit (a time-min
		// is backfill's: the entry's limit is what backfill plans with).
		if nodes, _ := it.job(); int(nodes) > s.free() || s.sync.on && s.sync.crosses(s.now, s.jobs[id].LimitSec) {
			break
		}
		s.work.MainStarted++
		s.start(id, s.jobs[id].LimitSec)
	}
}

func exp2(x float64) float64 { return math.Exp2(x) }

// computePriorities fills scratch.prio for every pending job.
func (s *Sim) computePriorities() {
	if cap(s.scratch.prio) < len(s.jobs) {
		s.scratch.prio = make([]float64, len(s.jobs)+len(s.jobs)/2)
	}
	prio := s.scratch.prio[:len(s.jobs)]
	s.scratch.prio = prio
	if s.cfg.Priority.FairShareWeight != 0 && len(s.scratch.fs) < s.users {
		s.scratch.fs = make([]float64, s.users+s.users/2+1)
		s.scratch.fsGen = make([]uint64, len(s.scratch.fs))
	}
	s.scratch.gen++
	total := s.usageTotal
	for _, id := range s.pending {
		prio[id] = s.priorityOf(id, total)
	}
}

// fairShare returns user u's fair-share factor, 2^(−usage/total·users),
// computed once per scratch generation (a pass or order).
func (s *Sim) fairShare(u int32, totalUsage float64) float64 {
	if totalUsage <= 0 {
		return 1
	}
	if int(u) < len(s.scratch.fs) {
		if s.scratch.fsGen[u] == s.scratch.gen {
			return s.scratch.fs[u]
		}
		fs := math.Exp2(-s.usage[u] / totalUsage * s.fsUsers())
		s.scratch.fs[u], s.scratch.fsGen[u] = fs, s.scratch.gen
		return fs
	}
	return math.Exp2(-s.usage[u] / totalUsage * s.fsUsers())
}
