package sim

import (
	"context"
	"fmt"
	"runtime/debug"
)

// startRecorder records start times into a slice indexed by JobID.
type startRecorder struct{ starts []int64 }

func (r *startRecorder) Started(id JobID, at int64) {
	for int(id) >= len(r.starts) {
		r.starts = append(r.starts, -1)
	}
	r.starts[id] = at
}
func (r *startRecorder) Finished(JobID, int64) {}
func (r *startRecorder) Left(JobID, int64)     {}

// Replay simulates jobs from the first submission until nothing is left
// and returns each job's simulated start (Unix seconds; -1 for a job that
// never started) and the number of events processed.
// A panic inside the simulation (a bug) is returned as an error with its
// stack.
func Replay(ctx context.Context, cfg Config, jobs []Job) (starts []int64, events int64, err error) {
	starts, events, _, err = ReplayWork(ctx, cfg, jobs)
	return starts, events, err
}

// ReplayWork is Replay that also returns what the scheduling passes did.
func ReplayWork(ctx context.Context, cfg Config, jobs []Job) (starts []int64, events int64, work Work, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replay: internal error: %v\n%s", r, debug.Stack())
		}
	}()
	rec := &startRecorder{starts: make([]int64, len(jobs))}
	for i := range rec.starts {
		rec.starts[i] = -1
	}
	s, err := New(cfg, jobs, rec)
	if err != nil {
		return nil, 0, Work{}, fmt.Errorf("replay: %w", err)
	}
	if err := s.Run(ctx); err != nil {
		return nil, s.Events(), s.Work(), fmt.Errorf("replay: %w", err)
	}
	return rec.starts[:len(jobs)], s.Events(), s.Work(), nil
}
