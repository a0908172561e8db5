package features

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/sim"
)

// windowRun is one window of one chain size: the main timeline, on which
// features are computed and in which Q never exists.
type windowRun struct {
	opts *Options
	s    *sim.Sim
	rec  *recentWaits
	hist History
	st   State // Vector's input, reused
	pid  sim.JobID
	p, q sim.Job // the chain; q.Submit is set per probe
	// idx maps the window's job IDs to indices of the trace's jobs, and
	// med are opts.RunTimes' medians by window job ID (nil without).
	idx []int
	med []int64

	nextSample int64 // next history sample time
}

// unitResult holds one window's samples, row-major.
type unitResult struct {
	window     int
	start      int64
	nodes      int
	probes     []int64
	feats      []float64 // len(probes)*width
	rSec, wait []int64
}

// newWindowRun builds the main timeline of window w (starting at start)
// for a chain of nodes nodes run by user, and runs it to P's submission.
func newWindowRun(ctx context.Context, jobs []sim.Job, opts *Options, start int64, nodes int, user int32) (*windowRun, error) {
	p := sim.Job{Name: "P", User: user, Nodes: int32(nodes), Submit: start + opts.WarmupSec, After: sim.NoJob,
		LimitSec: opts.ChainLimitSec, RunSec: opts.ChainRunSec}
	q := p
	q.Name = "Q"
	q.TimeMinSec = opts.QTimeMinSec
	return newChainRun(ctx, jobs, opts, start, p, q)
}

// newChainRun builds the main timeline of the window starting at start
// with chain P and Q's template q (its Submit set per probe), and runs it
// to P's submission, p.Submit (after start).
func newChainRun(ctx context.Context, jobs []sim.Job, opts *Options, start int64, p, q sim.Job) (*windowRun, error) {
	rec := newRecentWaits(opts.RecentStarts)
	s, idx, err := sim.NewWindow(opts.Config, jobs, start, opts.WorkloadSec, opts.Mode, rec)
	if err != nil {
		return nil, err
	}
	rec.s = s
	wr := &windowRun{opts: opts, s: s, rec: rec, idx: idx}
	if opts.RunTimes != nil {
		wr.med = Local(opts.RunTimes.MedianSec, idx)
	}
	pSubmit := p.Submit
	from := max(start, pSubmit-opts.HistorySec)
	wr.nextSample = ceilMul(from, opts.SampleSec)
	wr.p, wr.q = p, q
	if err := wr.advance(ctx, pSubmit); err != nil {
		return nil, err
	}
	if wr.pid, err = s.Submit(wr.p); err != nil {
		return nil, err
	}
	wr.p = s.Job(wr.pid) // normalised
	return wr, nil
}

func ceilMul(t, m int64) int64 {
	r := ((t % m) + m) % m
	if r == 0 {
		return t
	}
	return t - r + m
}

// advance runs the main timeline to decision time t: everything strictly
// before t is processed, and the clock is at t with t's events (arrivals,
// ends, capacity steps, the main and backfill passes) not yet processed
// (sim.Sim.RunBefore). A job submitted at t (P here, Q in a fork) is
// therefore queued in the same step as t's events and gets t's passes, as
// in the Mirage artifact's simulator. History samples on the SampleSec
// grid strictly before t are taken after everything at their time
// (RunUntil); a sample due at exactly t is taken by the next advance.
func (wr *windowRun) advance(ctx context.Context, t int64) error {
	for ; wr.nextSample < t; wr.nextSample += wr.opts.SampleSec {
		if err := wr.s.RunUntil(ctx, wr.nextSample); err != nil {
			return err
		}
		snap := wr.s.Snapshot()
		wr.hist.Record(&snap, wr.rec.mean())
	}
	return wr.s.RunBefore(ctx, t)
}

// pEnd returns P's end in a simulation where it has started: start + run.
func (wr *windowRun) pEnd(s *sim.Sim) (int64, bool) {
	st, ok := s.Started(wr.pid)
	return st + wr.p.RunSec, ok
}

// features writes the feature vector at the main timeline's clock into
// dst (opts.width() values) with Vector. It reads only the main timeline's
// state at Now, its history and its recorder; the ahead_* features come
// from a fork that submits Q at Now and processes only what happens at Now.
func (wr *windowRun) features(ctx context.Context, dst []float64) error {
	st := &wr.st
	st.Sim, st.PID, st.P, st.Q = wr.s, wr.pid, wr.p, wr.q
	st.RecentMeanWaitSec, st.RecentStarts = wr.rec.mean(), wr.rec.count()
	st.History, st.Location = &wr.hist, wr.opts.Location
	st.MedianRunSec, st.Wide = wr.med, wr.opts.Wide
	return Vector(ctx, dst, st)
}

// label forks the main timeline, submits Q at Now and runs the fork until
// Q starts. It returns r = Q.start - P.end and Q's wait, in seconds.
func (wr *windowRun) label(ctx context.Context, pEndPre int64) (r, wait int64, err error) {
	f := wr.s.Clone(nil)
	q := wr.q
	q.Submit = f.Now()
	qid, err := f.Submit(q)
	if err != nil {
		return 0, 0, err
	}
	qStart, err := f.RunUntilStarted(ctx, qid)
	if err != nil {
		return 0, 0, err
	}
	pEnd, ok := wr.pEnd(f)
	if !ok { // Q started before P: keep the pre-simulated end
		pEnd = pEndPre
	}
	return qStart - pEnd, qStart - f.Job(qid).Submit, nil
}

// runWindow produces window w's samples for a chain of nodes nodes. With
// noLabels it computes the features only and never submits Q anywhere
// but in the ahead_* fork (for the leakage test).
func runWindow(ctx context.Context, jobs []sim.Job, opts *Options, w, nodes int, user int32, noLabels bool) (unitResult, error) {
	start := opts.Start + int64(w)*opts.IntervalSec
	res := unitResult{window: w, start: start, nodes: nodes}
	wr, err := newWindowRun(ctx, jobs, opts, start, nodes, user)
	if err != nil {
		return res, err
	}
	pre := wr.s.Clone(nil)
	if _, err := pre.RunUntilStarted(ctx, wr.pid); err != nil {
		return res, fmt.Errorf("pre-simulate P: %w", err)
	}
	pEnd, _ := wr.pEnd(pre)
	if opts.Grid != nil {
		pStart, _ := pre.Started(wr.pid)
		res.probes = ProbeGrid(nil, *opts.Grid, wr.p.Submit, pStart, pStart+wr.p.LimitSec, pEnd)
	} else {
		res.probes = ProbeTimes(nil, wr.p.Submit+60, pEnd, opts.Probes)
	}
	width := opts.width()
	res.feats = make([]float64, len(res.probes)*width)
	res.rSec = make([]int64, len(res.probes))
	res.wait = make([]int64, len(res.probes))
	for k, t := range res.probes {
		if err := wr.advance(ctx, t); err != nil {
			return res, err
		}
		if err := wr.features(ctx, res.feats[k*width:(k+1)*width]); err != nil {
			return res, err
		}
		if noLabels {
			continue
		}
		if res.rSec[k], res.wait[k], err = wr.label(ctx, pEnd); err != nil {
			return res, fmt.Errorf("probe %d: %w", k, err)
		}
	}
	return res, nil
}
