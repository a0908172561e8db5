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

// replayProgress is sim.ReplayWork with progress on bar: it replays jobs
// from the first submission until nothing is left and returns each job's
// simulated start (-1: never), the events processed and the scheduling
// work. It stops with ctx's error when ctx is cancelled (the simulator
// checks it every 1,024 events). With own, the simulation adopts jobs
// (sim.NewOwning: one copy of millions of jobs, not two); their Submit
// times are as given afterwards (minute rounding changes them only
// during the replay), the rest of a job may be normalised.
func replayProgress(ctx context.Context, cfg sim.Config, jobs []sim.Job, bar *progressBar, loc *time.Location, own bool) (starts []int64, events int64, work sim.Work, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replay: internal error: %v\n%s", r, debug.Stack())
		}
	}()
	rec := &progressRecorder{starts: make([]int64, len(jobs)), bar: bar, loc: loc}
	for i := range rec.starts {
		rec.starts[i] = -1
	}
	newSim := sim.New
	if own {
		newSim = sim.NewOwning
		if cfg.MinuteRounding {
			submit := make([]int64, len(jobs))
			for i := range jobs {
				submit[i] = jobs[i].Submit
			}
			defer func() {
				for i := range jobs {
					jobs[i].Submit = submit[i]
				}
			}()
		}
	}
	s, err := newSim(cfg, jobs, rec)
	if err != nil {
		return nil, 0, sim.Work{}, fmt.Errorf("replay: %w", err)
	}
	if err := s.Run(ctx); err != nil {
		return nil, s.Events(), s.Work(), fmt.Errorf("replay: %w", err)
	}
	return rec.starts, s.Events(), s.Work(), nil
}

// notCompared says why no job of a replay had a real wait to compare:
// how many jobs ran from a start the trace did not record, never started
// in the trace (cancelled while pending, or still pending), or did not
// start in the simulation.
func notCompared(conv sim.Conversion, jobs []sim.Job, starts []int64) string {
	if len(jobs) == 0 {
		return "no job had a real wait to compare: the replay has no jobs (see conversion.skipped)"
	}
	neverSim := 0
	for i := range jobs {
		if _, ok := jobs[i].TraceWait(); ok && starts[i] < 0 {
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
	return fmt.Sprintf("no job had a real wait to compare, so there are no fidelity figures: of the %d jobs replayed, %s", len(jobs), strings.Join(why, ", "))
}
