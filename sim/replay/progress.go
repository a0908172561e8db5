package replay

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// progressRecorder records each job's simulated start (Unix seconds; -1
// for a job that never started) and reports the replay's simulated clock
// to progress, at most once a second. The wall clock only paces the
// reports; nothing of the results depends on it.
type progressRecorder struct {
	starts   []int64
	started  int
	calls    int
	progress func(at int64, started, total int) // nil: none
	last     time.Time
}

func (r *progressRecorder) Started(id sim.JobID, at int64) {
	r.starts[id] = at
	r.started++
	r.tick(at)
}
func (r *progressRecorder) Finished(_ sim.JobID, at int64) { r.tick(at) }
func (r *progressRecorder) Left(_ sim.JobID, at int64)     { r.tick(at) }

// tick reports progress every 256 calls when a second has passed.
func (r *progressRecorder) tick(at int64) {
	r.calls++
	if r.calls&255 != 0 || r.progress == nil {
		return
	}
	if now := time.Now(); now.Sub(r.last) >= time.Second {
		r.last = now
		r.progress(at, r.started, len(r.starts))
	}
}

// replayed is what replayProgress returns: each job's simulated start
// (-1: never), the events processed and the scheduling work, and, when
// minute rounding changed the table's submissions, the ones given.
type replayed struct {
	starts []int64
	events int64
	work   sim.Work
	submit []int64 // nil: the table's are as given
}

// job returns job i of the replayed table tab as it was given: its
// submission is the trace's, not the one minute rounding made (the rest
// is as the simulation normalised it).
func (r *replayed) job(tab *sim.Table, i int) sim.Job {
	j := tab.Job(i)
	if r.submit != nil {
		j.Submit = r.submit[i]
	}
	return j
}

// replayProgress is sim.ReplayWork with progress reports: it replays
// tab's jobs from the first submission until nothing is left. The
// simulation adopts tab (sim.NewFromTable: the jobs are held once). It
// stops with ctx's error when ctx is cancelled (the simulator checks it
// every 1,024 events). A panic of the simulator is returned as an error
// with its stack.
func replayProgress(ctx context.Context, cfg sim.Config, tab *sim.Table, progress func(at int64, started, total int)) (r replayed, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("replay: internal error: %v\n%s", p, debug.Stack())
		}
	}()
	rec := &progressRecorder{starts: make([]int64, tab.Len()), progress: progress}
	for i := range rec.starts {
		rec.starts[i] = -1
	}
	if cfg.MinuteRounding {
		r.submit = make([]int64, tab.Len())
		for i := range r.submit {
			r.submit[i] = tab.Job(i).Submit
		}
	}
	s, err := sim.NewFromTable(cfg, tab, rec)
	if err != nil {
		return replayed{}, fmt.Errorf("replay: %w", err)
	}
	if err := s.Run(ctx); err != nil {
		return replayed{}, fmt.Errorf("replay: %w", err)
	}
	r.starts, r.events, r.work = rec.starts, s.Events(), s.Work()
	return r, nil
}
