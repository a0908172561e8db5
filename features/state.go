package features

import (
	"context"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// State is everything the feature vector at a decision time reads. The
// simulator's main timeline (Build, Timeline) and the live path (package
// advise, which rebuilds the queue from squeue and sacct with
// sim.FromSnapshot) both fill one and call Vector, so a model sees the same
// function of the queue in training and in deployment.
type State struct {
	// Sim is a simulation at the decision time Sim.Now(), with what happens
	// at Now (arrivals, ends, the scheduling passes) not yet processed
	// (sim.Sim.RunBefore). Vector only reads it (Snapshot, EstimatedStart,
	// Started) and clones it; it is never changed.
	Sim *sim.Sim
	// PID is P's job ID in Sim; P must have been submitted there.
	PID sim.JobID
	// P is P as submitted (normalised): Nodes, LimitSec (seconds) and
	// Submit (Unix seconds) are read.
	P sim.Job
	// Q is Q's template: Vector submits a copy at Now in a fork for the
	// ahead_* features and plans it for the q_est_* features.
	Q sim.Job
	// RecentMeanWaitSec is the mean wait (Start − Submit, seconds) of the
	// last RecentStarts jobs that started before Now, 0 before any start;
	// RecentStarts is how many it is over.
	RecentMeanWaitSec float64
	RecentStarts      int
	// History holds the samples taken before Now; nil means none.
	History *History
	// Location is the zone of hour_of_day and day_of_week; nil means UTC.
	Location *time.Location
	// MedianRunSec, when not nil, are a run-time model's median run times
	// of Sim's jobs, seconds, indexed by job ID (Local); Vector then
	// writes the ModelEstimateName column after the NumFeatures others.
	MedianRunSec []int64
	// Wide, when set, makes Vector write the wide columns (Wide) after
	// the NumFeatures others, before ModelEstimateName.
	Wide bool

	buf, cur []float64 // scratch, reused across calls
}

// Vector writes the feature vector of st (NumFeatures values, Names'
// order, then the wide columns when st.Wide is set, then
// ModelEstimateName when st.MedianRunSec is set) into dst, which must
// hold exactly that many values. It returns ctx's error or an error of
// the ahead_* fork (Q refused by the simulation).
func Vector(ctx context.Context, dst []float64, st *State) error {
	want := numFeats
	if st.Wide {
		want += NumWide
	}
	if st.MedianRunSec != nil {
		want++
	}
	if len(dst) != want {
		panic("features: Vector: dst length mismatch")
	}
	s := st.Sim
	snap := s.Snapshot()
	now := snap.Now
	queueStats(dst[offQueue:offQueue+NumQueueStats], &snap, &st.buf)
	q := st.Q
	q.Submit = now

	c := dst[offChain : offChain+numChain]
	pEnd := now + st.P.LimitSec // not started: at the earliest a limit from now
	if start, ok := s.Started(st.PID); ok {
		pEnd = start + st.P.LimitSec
		c[0], c[2], c[3] = 1, float64(start-st.P.Submit), float64(now-start)
	} else {
		c[0], c[2], c[3] = 0, float64(now-st.P.Submit), 0
	}
	c[1], c[4] = float64(st.P.Nodes), float64(max(pEnd-now, 0))
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

	if err := ahead(ctx, s, a[:3], q); err != nil {
		return err
	}
	var endNodes, endNodeSec int64
	for _, r := range snap.Running {
		if r.ID == st.PID {
			continue
		}
		if e := r.Start + r.LimitSec; e <= pEnd {
			endNodes += int64(r.Nodes)
			endNodeSec += int64(r.Nodes) * max(e-now, 0)
		}
	}
	a[4], a[5] = float64(endNodes), float64(endNodeSec)

	loc := st.Location
	if loc == nil {
		loc = time.UTC
	}
	tm := time.Unix(now, 0).In(loc)
	dst[offTime] = float64(tm.Hour()) + float64(tm.Minute())/60 + float64(tm.Second())/3600
	dst[offTime+1] = float64(tm.Weekday())
	dst[offRecent], dst[offRecent+1] = st.RecentMeanWaitSec, float64(st.RecentStarts)

	if len(st.cur) != len(historySeries) {
		st.cur = make([]float64, len(historySeries))
	}
	for i, h := range historySeries {
		if h.qs < 0 {
			st.cur[i] = st.RecentMeanWaitSec
		} else {
			st.cur[i] = dst[offQueue+h.qs]
		}
	}
	hist := st.History
	if hist == nil {
		hist = &History{}
	}
	hist.summarise(dst[offHistory:numFeats], now, st.cur)
	if st.Wide {
		wideColumns(dst[numFeats:numFeats+NumWide], &snap, st.PID, pEnd, st.Q.Nodes)
	}
	if st.MedianRunSec != nil {
		dst[want-1] = ModelEstimateR(s, st.PID, st.P, st.Q, st.MedianRunSec)
	}
	return nil
}

// ahead writes the pending jobs, nodes and node-seconds (by time limit)
// ahead of Q in priority order if Q were submitted now. It forks s,
// submits Q there and processes only the events at Now; if Q starts at
// once, nothing is ahead of it.
func ahead(ctx context.Context, s *sim.Sim, dst []float64, q sim.Job) error {
	f := s.Clone(nil)
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
