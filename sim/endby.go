package sim

import "fmt"

// EndBy makes running job id end at t (Unix seconds, at least Now) when
// it would otherwise end later: a service's predecessor that hands over
// to its successor and stops a handover time after the successor starts.
// The scheduler is not told: its plans keep the job's limit, as Slurm's
// do until the job ends. It reports whether the end moved; a job that is
// not running is an error. Clones taken before are not changed.
func (s *Sim) EndBy(id JobID, t int64) (bool, error) {
	if id < 0 || int(id) >= len(s.jobs) {
		return false, fmt.Errorf("end by: job %d out of range", id)
	}
	if st := s.st.get(id).status; st != statusRunning {
		return false, fmt.Errorf("end by: job %s is not running", s.names.get(s.jobs[id].name))
	}
	t = max(t, s.now)
	for i := range s.events {
		e := &s.events[i]
		if e.kind != eventJobEnd || e.job != id {
			continue
		}
		if e.at <= t {
			return false, nil
		}
		e.at = t
		s.events.init()
		return true, nil
	}
	return false, fmt.Errorf("end by: job %s has no end event", s.names.get(s.jobs[id].name))
}
