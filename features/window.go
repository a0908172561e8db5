package features

import (
	"context"
	"fmt"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// windowRun is one window of one chain size: the main timeline, on which
// features are computed and in which Q never exists.
type windowRun struct {
	opts *Options
	s    *sim.Sim
	rec  *recentWaits
	hist history
	pid  sim.JobID
	p, q sim.Job // the chain; q.Submit is set per probe

	nextSample int64 // next history sample time
	qs, cur    []float64
	buf        []float64
}

// unitResult holds one window's samples, row-major.
type unitResult struct {
	window     int
	start      int64
	nodes      int
	probes     []int64
	feats      []float64 // len(probes)*numFeats
	rSec, wait []int64
}

// newWindowRun builds the main timeline of window w (starting at start)
// for a chain of nodes nodes run by user, and runs it to P's submission.
func newWindowRun(ctx context.Context, jobs []sim.Job, opts *Options, start int64, nodes int, user int32) (*windowRun, error) {
	rec := newRecentWaits(opts.RecentStarts)
	s, _, err := sim.NewWindow(opts.Config, jobs, start, opts.WorkloadSec, opts.Mode, rec)
	if err != nil {
		return nil, err
	}
	rec.s = s
	wr := &windowRun{opts: opts, s: s, rec: rec, qs: make([]float64, NumQueueStats), cur: make([]float64, len(historySeries))}
	pSubmit := start + opts.WarmupSec
	from := max(start, pSubmit-opts.HistorySec)
	wr.nextSample = ceilMul(from, opts.SampleSec)
	wr.p = sim.Job{Name: "P", User: user, Nodes: int32(nodes), Submit: pSubmit, After: sim.NoJob,
		LimitSec: opts.ChainLimitSec, RunSec: opts.ChainRunSec}
	wr.q = wr.p
	wr.q.Name = "Q"
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
		wr.qs = queueStats(wr.qs, &snap, &wr.buf)
		wr.hist.record(wr.nextSample, wr.qs, wr.rec.mean())
	}
	return wr.s.RunBefore(ctx, t)
}

// pEnd returns P's end in a simulation where it has started: start + run.
func (wr *windowRun) pEnd(s *sim.Sim) (int64, bool) {
	st, ok := s.Started(wr.pid)
	return st + wr.p.RunSec, ok
}

// features writes the feature vector at the main timeline's clock into
// dst (numFeats values). It reads only the main timeline's state at Now,
// its history and its recorder; the ahead_* features come from a fork that
// submits Q at Now and processes only what happens at Now.
func (wr *windowRun) features(ctx context.Context, dst []float64) error {
	s := wr.s
	snap := s.Snapshot()
	now := snap.Now
	queueStats(dst[offQueue:offQueue+NumQueueStats], &snap, &wr.buf)
	q := wr.q
	q.Submit = now

	c := dst[offChain : offChain+numChain]
	pEnd := now + wr.p.LimitSec // not started: at the earliest a limit from now
	if st, ok := s.Started(wr.pid); ok {
		pEnd = st + wr.p.LimitSec
		c[0], c[2], c[3] = 1, float64(st-wr.p.Submit), float64(now-st)
	} else {
		c[0], c[2], c[3] = 0, float64(now-wr.p.Submit), 0
	}
	c[1], c[4] = float64(wr.p.Nodes), float64(max(pEnd-now, 0))
	c[5], c[6] = float64(q.Nodes), float64(q.LimitSec)
	a := dst[offAhead : offAhead+numAhead]
	if est, ok := s.EstimatedStart(q); ok {
		c[7], a[3] = float64(est-now), 1
	} else {
		c[7], a[3] = float64(s.Config().Backfill.WindowSec), 0
	}
	c[8] = c[7] + float64(now-pEnd) // beyond the window: as if at its end
	if est, ok := s.EstimatedStartPredicted(q); ok {
		c[9] = float64(est - pEnd)
	} else {
		c[9] = float64(now + s.Config().Backfill.WindowSec - pEnd)
	}

	if err := wr.ahead(ctx, a[:3], q); err != nil {
		return err
	}
	var endNodes, endNodeSec int64
	for _, r := range snap.Running {
		if r.ID == wr.pid {
			continue
		}
		if e := r.Start + r.LimitSec; e <= pEnd {
			endNodes += int64(r.Nodes)
			endNodeSec += int64(r.Nodes) * max(e-now, 0)
		}
	}
	a[4], a[5] = float64(endNodes), float64(endNodeSec)

	tm := time.Unix(now, 0).In(wr.opts.Location)
	dst[offTime] = float64(tm.Hour()) + float64(tm.Minute())/60 + float64(tm.Second())/3600
	dst[offTime+1] = float64(tm.Weekday())
	dst[offRecent], dst[offRecent+1] = wr.rec.mean(), float64(wr.rec.count())

	for i, h := range historySeries {
		if h.qs < 0 {
			wr.cur[i] = wr.rec.mean()
		} else {
			wr.cur[i] = dst[offQueue+h.qs]
		}
	}
	wr.hist.summarise(dst[offHistory:numFeats], now, wr.cur)
	return nil
}

// ahead writes the pending jobs, nodes and node-seconds (by time limit)
// ahead of Q in priority order if Q were submitted now. It forks the main
// timeline, submits Q there and processes only the events at Now; if Q
// starts at once, nothing is ahead of it.
func (wr *windowRun) ahead(ctx context.Context, dst []float64, q sim.Job) error {
	f := wr.s.Clone(nil)
	qid, err := f.Submit(q)
	if err != nil {
		return err
	}
	if err := f.RunUntil(ctx, f.Now()); err != nil {
		return err
	}
	snap := f.Snapshot()
	var jobs, nodes, nodeSec int64
	for _, p := range snap.Pending {
		if p.ID == qid {
			dst[0], dst[1], dst[2] = float64(jobs), float64(nodes), float64(nodeSec)
			return nil
		}
		jobs++
		nodes += int64(p.Nodes)
		nodeSec += int64(p.Nodes) * p.LimitSec
	}
	clear(dst) // Q started at once
	return nil
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
	res.feats = make([]float64, len(res.probes)*numFeats)
	res.rSec = make([]int64, len(res.probes))
	res.wait = make([]int64, len(res.probes))
	for k, t := range res.probes {
		if err := wr.advance(ctx, t); err != nil {
			return res, err
		}
		if err := wr.features(ctx, res.feats[k*numFeats:(k+1)*numFeats]); err != nil {
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
