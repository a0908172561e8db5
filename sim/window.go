package sim

import "fmt"

// WindowMode is how a window's simulation starts.
type WindowMode uint8

const (
	// WindowCold starts from an empty cluster: only jobs submitted in the
	// window take part (the Mirage artifact's protocol).
	WindowCold WindowMode = iota
	// WindowWarm starts from the trace's real state: jobs running at the
	// window's start keep running for their remaining time, jobs pending
	// then are queued, and later arrivals follow.
	WindowWarm
)

// String returns "cold" or "warm".
func (m WindowMode) String() string {
	if m == WindowWarm {
		return "warm"
	}
	return "cold"
}

// ParseWindowMode parses "cold" or "warm".
func ParseWindowMode(s string) (WindowMode, error) {
	switch s {
	case "cold":
		return WindowCold, nil
	case "warm":
		return WindowWarm, nil
	}
	return 0, fmt.Errorf("window mode %q: want cold or warm", s)
}

// NewWindow builds a simulation whose clock starts at start (Unix
// seconds) from a trace's jobs (as FromTrace makes them): cold, with the
// jobs submitted in [start, start+length]; or warm, with in addition the
// jobs running at start (by TraceStart and RunSec; they keep their real
// start and end at their real end) and those pending at start (submitted
// before it and started, or cancelled, after it). Dependencies on jobs
// outside the window are dropped. It returns the simulation and, for each
// of its job IDs, the index of the job in jobs.
func NewWindow(cfg Config, jobs []Job, start, length int64, mode WindowMode, rec Recorder) (*Sim, []int, error) {
	end := start + length
	var idx []int
	running := map[int]bool{}
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.Submit >= start && j.Submit <= end:
			idx = append(idx, i)
		case mode == WindowWarm && j.Submit < start:
			ran := j.TraceStart > 0
			switch {
			case ran && j.TraceStart <= start && j.TraceStart+j.RunSec > start:
				idx = append(idx, i)
				running[i] = true
			case ran && j.TraceStart > start, !ran && j.Cancel > start:
				idx = append(idx, i)
			}
		}
	}
	local := make(map[int]JobID, len(idx))
	for k, i := range idx {
		local[i] = JobID(k)
	}
	sub := make([]Job, len(idx))
	for k, i := range idx {
		sub[k] = jobs[i]
		if a := sub[k].After; a != NoJob {
			if l, ok := local[int(a)]; ok {
				sub[k].After = l
			} else {
				sub[k].After = NoJob
			}
		}
	}
	s, err := New(cfg, sub, rec)
	if err != nil {
		return nil, nil, fmt.Errorf("window at %d: %w", start, err)
	}
	s.now, s.usageAt, s.usageT0 = start, start, start
	s.nextBF = s.alignBF(start)
	s.capIdx = 0
	s.capacity = cfg.Nodes
	s.applyCapacityUntil(start)
	// Prime the jobs that are already in the system at start, in arrival
	// order: running ones first so that pending ones see them.
	for s.next < len(s.arrivals) && s.jobs[s.arrivals[s.next]].Submit < start {
		s.next++
	}
	for _, id := range s.arrivals[:s.next] {
		if !running[idx[id]] {
			continue
		}
		j := &s.jobs[id]
		st := s.st.mut(id)
		st.status, st.start = statusRunning, j.TraceStart
		s.addRunning(id, j.LimitSec)
		s.push(max(j.TraceStart+j.RunSec, start), eventJobEnd, id)
	}
	for _, id := range s.arrivals[:s.next] {
		if !running[idx[id]] {
			s.submit(id)
		}
	}
	return s, idx, nil
}
