package sim

// fsUsers returns the number of users in the fair-share formula: every
// user index of the simulation, Priority.FairShareUsers when set, or
// with Priority.FairShareSeenUsers the users that have submitted so far
// (at least 1).
func (s *Sim) fsUsers() float64 {
	if n := s.cfg.Priority.FairShareUsers; n > 0 {
		return float64(n)
	}
	if s.cfg.Priority.FairShareSeenUsers {
		return float64(max(s.seenUsers, 1))
	}
	return float64(s.users)
}

// see counts user u as seen (a job of u was submitted).
func (s *Sim) see(u int32) {
	if u < 0 {
		return
	}
	if int(u) >= len(s.userSeen) {
		s.userSeen = append(s.userSeen, make([]bool, int(u)+1-len(s.userSeen))...)
	}
	if !s.userSeen[u] {
		s.userSeen[u] = true
		s.seenUsers++
	}
}
