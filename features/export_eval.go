package features

import (
	"context"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
)

// Timeline is one window's main timeline for one chain size, as Build
// builds it, for evaluation: P is submitted after the warm-up, Q never
// exists on it, and the features at its clock are those Build computes
// at a probe. It is not safe for concurrent use.
type Timeline struct {
	wr    *windowRun
	start int64 // the window's start, Unix seconds
}

// Normalise fills opts' defaults (as Build does) and validates it,
// returning an error wrapping ErrOptions.
func Normalise(opts *Options) error { return opts.normalise() }

// ChainUser returns the user index Build gives the chain: one more than
// every user of jobs.
func ChainUser(jobs []sim.Job) int32 {
	var user int32
	for i := range jobs {
		user = max(user, jobs[i].User+1)
	}
	return user
}

// NewTimeline builds window w's main timeline for a chain of nodes nodes
// run by user and runs it to P's submission (P submitted). opts must be
// normalised (Normalise) and must outlive the Timeline.
func NewTimeline(ctx context.Context, jobs []sim.Job, opts *Options, w, nodes int, user int32) (*Timeline, error) {
	if err := opts.checkRunTimes(len(jobs)); err != nil {
		return nil, err
	}
	start := opts.Start + int64(w)*opts.IntervalSec
	wr, err := newWindowRun(ctx, jobs, opts, start, nodes, user)
	if err != nil {
		return nil, err
	}
	return &Timeline{wr: wr, start: start}, nil
}

// Start returns the window's start (Unix seconds): the simulation holds
// every job submitted from then on, and before it only those still
// running or pending then (warm) or none (cold).
func (t *Timeline) Start() int64 { return t.start }

// Sim returns the main timeline's simulation; callers must only read it
// (Snapshot, EstimatedStart, Started) or Clone it.
func (t *Timeline) Sim() *sim.Sim { return t.wr.s }

// JobIndex returns, for each of the simulation's job IDs, the index of
// the job in the jobs given to NewTimeline (sim.NewWindow's index); P and
// Q are beyond it. Callers must not change it.
func (t *Timeline) JobIndex() []int { return t.wr.idx }

// PID returns P's job ID.
func (t *Timeline) PID() sim.JobID { return t.wr.pid }

// P returns P as submitted (normalised).
func (t *Timeline) P() sim.Job { return t.wr.p }

// Q returns Q's template: P's size, limit and run time, its Submit to be
// set by the caller.
func (t *Timeline) Q() sim.Job { return t.wr.q }

// Advance runs the timeline to decision time at, sampling the feature
// history: everything strictly before at is processed and the clock is at
// at, with what happens at at (arrivals, ends, capacity steps, the main
// and backfill passes) still to come (sim.Sim.RunBefore). Sim, Features
// and a policy at at therefore see the queue just before at's events, and
// Q submitted at at in a fork (QOutcome) is queued before at's scheduling
// passes, as in the Mirage artifact's simulator: a reactive Q submitted at
// P's end competes for P's nodes in the passes at P's end.
func (t *Timeline) Advance(ctx context.Context, at int64) error { return t.wr.advance(ctx, at) }

// Features writes the feature vector at the timeline's clock into dst
// (len(opts.FeatureNames()) values, in its order).
func (t *Timeline) Features(ctx context.Context, dst []float64) error { return t.wr.features(ctx, dst) }

// RecentMeanWaitSec returns the mean wait of the last RecentStarts jobs
// started on the timeline (0 before any start), and how many it is over.
func (t *Timeline) RecentMeanWaitSec() (float64, int) { return t.wr.rec.mean(), t.wr.rec.count() }

// DecisionGrid appends to dst the decision times of a chain: pSubmit +
// k*step while before pEnd, then pStart and pEnd, sorted and unique. It is
// the grid evaluate's policies and the DQN environment decide on.
func DecisionGrid(dst []int64, pSubmit, pStart, pEnd, step int64) []int64 {
	for t := pSubmit; t < pEnd; t += step {
		dst = append(dst, t)
	}
	dst = append(dst, pStart, pEnd)
	slices.Sort(dst)
	return slices.Compact(dst)
}

// QOutcome forks the timeline's simulation (which must be at t, as Advance
// leaves it: t's events not yet processed), submits Q at t so that it is
// queued with t's events and gets t's passes, runs the fork until Q starts and returns Q's start and r = Q.start
// − P.end in the fork (pEnd when P has not started there). The timeline
// itself is not changed.
func (tl *Timeline) QOutcome(ctx context.Context, t, pEnd int64) (qStart, rSec int64, err error) {
	o, err := tl.QStart(ctx, t, pEnd)
	return o.Start, o.RSec, err
}

// QResult is the outcome of Q submitted at one time (Timeline.QStart).
type QResult struct {
	// Start is Q's start and RSec Q.start − P.end (Unix seconds,
	// seconds), as QOutcome returns them.
	Start, RSec int64
	// LimitSec is the time limit Q starts under (sim.Sim.Limit): its
	// LimitSec, or with a time-min (Options.QTimeMinSec) the one backfill
	// granted it, between the two. A Q whose service runs to its limit
	// ends LimitSec after Start: the link's length.
	LimitSec int64
}

// QStart is QOutcome with the limit Q starts under.
func (tl *Timeline) QStart(ctx context.Context, t, pEnd int64) (QResult, error) {
	return tl.QStartWith(ctx, t, pEnd, tl.Q())
}

// QStartWith is QStart for Q's template q (Q with another --time-min,
// say) in place of the timeline's; its Submit is set to t.
func (tl *Timeline) QStartWith(ctx context.Context, t, pEnd int64, q sim.Job) (QResult, error) {
	f := tl.Sim().Clone(nil)
	q.Submit = t
	qid, err := f.Submit(q)
	if err != nil {
		return QResult{}, err
	}
	qStart, err := f.RunUntilStarted(ctx, qid)
	if err != nil {
		return QResult{}, fmt.Errorf("Q submitted at %d: %w", t, err)
	}
	end := pEnd
	if st, ok := f.Started(tl.PID()); ok {
		end = st + tl.P().RunSec
	}
	lim, _ := f.Limit(qid)
	return QResult{Start: qStart, RSec: qStart - end, LimitSec: lim}, nil
}
