package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// progressRecorder records each job's simulated start (Unix seconds; -1
// for a job that never started) and shows the replay's simulated clock on
// a progress bar, at most once a second.
type progressRecorder struct {
	starts  []int64
	started int
	calls   int
	bar     *progressBar
	loc     *time.Location
	last    time.Time
}

func (r *progressRecorder) Started(id sim.JobID, at int64) {
	r.starts[id] = at
	r.started++
	r.tick(at)
}
func (r *progressRecorder) Finished(_ sim.JobID, at int64) { r.tick(at) }
func (r *progressRecorder) Left(_ sim.JobID, at int64)     { r.tick(at) }

// tick updates the progress bar every 256 calls when a second has passed.
func (r *progressRecorder) tick(at int64) {
	r.calls++
	if r.calls&255 != 0 || !r.bar.on {
		return
	}
	if now := time.Now(); now.Sub(r.last) >= time.Second {
		r.last = now
		r.bar.set("replay: simulated %s, %d of %d jobs started", time.Unix(at, 0).In(r.loc).Format("2006-01-02 15:04"), r.started, len(r.starts))
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

// replayProgress is sim.ReplayWork with progress on bar: it replays tab's
// jobs from the first submission until nothing is left. The simulation
// adopts tab (sim.NewFromTable: the jobs are held once). It stops with
// ctx's error when ctx is cancelled (the simulator checks it every 1,024
// events).
func replayProgress(ctx context.Context, cfg sim.Config, tab *sim.Table, bar *progressBar, loc *time.Location) (r replayed, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("replay: internal error: %v\n%s", p, debug.Stack())
		}
	}()
	rec := &progressRecorder{starts: make([]int64, tab.Len()), bar: bar, loc: loc}
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

// notCompared says why no job of a replay had a real wait to compare:
// how many jobs ran from a start the trace did not record, never started
// in the trace (cancelled while pending, or still pending), or did not
// start in the simulation.
func notCompared(conv sim.Conversion, tab *sim.Table, starts []int64) string {
	if tab.Len() == 0 {
		return "no job had a real wait to compare: the replay has no jobs (see conversion.skipped)"
	}
	neverSim := 0
	for i := range tab.Len() {
		if j := tab.Job(i); j.TraceStart > 0 && starts[i] < 0 {
			neverSim++
		}
	}
	var why []string
	if conv.StartUnknown > 0 {
		why = append(why, fmt.Sprintf("%d ran from a start the trace did not record (waits unknown, an SWF wait of -1)", conv.StartUnknown))
	}
	if n := conv.Cancelled + conv.Pending; n > 0 {
		why = append(why, fmt.Sprintf("%d never started in the trace (%d cancelled while pending, %d still pending)", n, conv.Cancelled, conv.Pending))
	}
	if neverSim > 0 {
		why = append(why, fmt.Sprintf("%d did not start in the simulation", neverSim))
	}
	if len(why) == 0 {
		why = append(why, "none has a recorded start")
	}
	return fmt.Sprintf("no job had a real wait to compare, so there are no fidelity figures: of the %d jobs replayed, %s", tab.Len(), strings.Join(why, ", "))
}
