package evaluate

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/workpool"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// ForecastTrainOptions configures TrainForecast.
type ForecastTrainOptions struct {
	// Features holds the training windows and the simulator (a training
	// protocol's Prepare, e.g. ls6); its Grid (default GridOptions) gives
	// the decision times replayed.
	Features features.Options
	// Stride replays every Stride-th window (0 or 1: all).
	Stride int
	// K is the rollouts per decision (0: DefaultRollouts); Seed seeds them.
	K    int
	Seed uint64
	// ResampleDays is Forecaster.ResampleDays.
	ResampleDays int
	// Correlation is Forecaster.Correlation.
	Correlation float64
	// OverlapBudgetH is the operating points' budget, hours of mean
	// overlap per window (0: train.DefaultOverlapBudgetH).
	OverlapBudgetH float64
	// Workers is the number of windows replayed at once (0: 1); the result
	// does not depend on it.
	Workers int
	// Progress, when not nil, is called after each window (never at once).
	Progress func(done, total int)
	// Protocol and Version are recorded in the manifest.
	Protocol, Version string
}

// forecastUnit is one training window's replay: per decision-grid time,
// the forecast's P(r > 0), the runtime estimate's score (hours) and r (s).
type forecastUnit struct {
	nodes  int
	prob   []float64
	est    []float64
	rSec   []int64
	probes int
}

// TrainForecast chooses the forecast's τ and the runtime estimate's
// margin on training windows, with the run-time model in rtDir, and
// returns the manifest (not written). Every Stride-th window of each chain
// size is replayed on its decision grid's labelled times
// (features.ProbeGrid): at each, the forecast's P(r > 0) (K rollouts;
// once it reaches 1 every τ has fired and the rest are not computed), the
// runtime estimate's score, and r if Q were submitted there (the window's
// fork, with true run times and arrivals). train.ChooseOperatingPoint then
// picks, per chain size, the parameter with the largest interruption
// reduction within the overlap budget. The run-time predictions of
// training-period jobs use out-of-fold target encodings
// (jobruntime.Model.DistributionOOF); the booster itself was fitted on
// them, so the forecast is somewhat sharper there than on later months.
func TrainForecast(ctx context.Context, tjobs []trace.Job, sjobs []sim.Job, rtDir string, o ForecastTrainOptions) (*ForecastManifest, error) {
	fo := o.Features
	fo.Probes = max(fo.Probes, 1)
	if fo.Grid == nil {
		g := features.GridOptions{}.WithDefaults()
		fo.Grid = &g
	}
	if err := features.Normalise(&fo); err != nil {
		return nil, err
	}
	stride := max(o.Stride, 1)
	k := o.K
	if k <= 0 {
		k = DefaultRollouts
	}
	rt, err := NewRunTimes(rtDir, tjobs, sjobs, true)
	if err != nil {
		return nil, err
	}
	digest, err := jobruntime.ModelDigest(rtDir)
	if err != nil {
		return nil, err
	}
	fc := &Forecaster{RT: rt, K: k, Seed: o.Seed, ResampleDays: o.ResampleDays, Correlation: o.Correlation}
	re := &RuntimeEstimate{RT: rt}
	var wins []int
	for w := 0; w < fo.Windows; w += stride {
		wins = append(wins, w)
	}
	user := features.ChainUser(sjobs)
	units := len(fo.ChainNodes) * len(wins)
	out := make([]forecastUnit, units)
	errs := workpool.Run(ctx, o.Workers, units, func(ctx context.Context, u int) (err error) {
		w, nodes := wins[u%len(wins)], fo.ChainNodes[u/len(wins)]
		if out[u], err = safeForecastWindow(ctx, sjobs, &fo, fc, re, w, nodes, user); err != nil {
			return fmt.Errorf("window %d (chain of %d nodes): %w", w, nodes, err)
		}
		return nil
	}, o.Progress)
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var probs, ests []float64
	var rs []int64
	var us []train.Unit
	for _, fu := range out {
		u := train.Unit{ChainNodes: int32(fu.nodes)}
		for i := range fu.rSec {
			u.Rows = append(u.Rows, len(rs))
			probs = append(probs, fu.prob[i])
			ests = append(ests, fu.est[i])
			rs = append(rs, fu.rSec[i])
		}
		us = append(us, u)
	}
	budget := o.OverlapBudgetH
	if budget <= 0 {
		budget = train.DefaultOverlapBudgetH
	}
	src := fmt.Sprintf("%d rollouts per decision replayed on every %d-th of %d training windows x %d chain sizes (%d decisions)",
		k, stride, fo.Windows, len(fo.ChainNodes), len(rs))
	fop, err := train.ChooseOperatingPoint(train.TargetInterrupt, probs, rs, us, budget, false, "forecast: "+src)
	if err != nil {
		return nil, err
	}
	fop.Rule = "submit when the forecast P(r > 0) >= tau (deciding on the decision grid's labelled times)"
	eop, err := train.ChooseOperatingPoint(train.TargetEstimateRT, ests, rs, us, budget, false, "runtime-estimate: "+src)
	if err != nil {
		return nil, err
	}
	eop.Rule = "submit when the scheduler's estimated start of Q with the run-time model's medians (the backfill window's end when Q fits nowhere in it) >= P's expected end - margin_h"
	return &ForecastManifest{Kind: ForecastKind, Runtime: rtDir, RuntimeSHA256: digest, K: k, Seed: o.Seed, ResampleDays: o.ResampleDays, Correlation: o.Correlation,
		Forecast: fop, RuntimeEstimate: eop, Protocol: o.Protocol, Windows: len(wins), Stride: stride, Version: o.Version}, nil
}

func safeForecastWindow(ctx context.Context, jobs []sim.Job, fo *features.Options, fc *Forecaster, re *RuntimeEstimate, w, nodes int, user int32) (fu forecastUnit, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return forecastWindow(ctx, jobs, fo, fc, re, w, nodes, user)
}

func forecastWindow(ctx context.Context, jobs []sim.Job, fo *features.Options, fc *Forecaster, re *RuntimeEstimate, w, nodes int, user int32) (forecastUnit, error) {
	fu := forecastUnit{nodes: nodes}
	tl, err := features.NewTimeline(ctx, jobs, fo, w, nodes, user)
	if err != nil {
		return fu, err
	}
	s, pid, p := tl.Sim(), tl.PID(), tl.P()
	pre := s.Clone(nil)
	pStart, err := pre.RunUntilStarted(ctx, pid)
	if err != nil {
		return fu, fmt.Errorf("pre-simulate P: %w", err)
	}
	pEnd := pStart + p.RunSec
	probes := features.ProbeGrid(nil, *fo.Grid, p.Submit, pStart, pStart+p.LimitSec, pEnd)
	pmax := 0.0
	local := map[*RunTimes]*RunTimes{} // run-time predictions by window job ID
	for _, t := range probes {
		if err := tl.Advance(ctx, t); err != nil {
			return fu, err
		}
		st, started := s.Started(pid)
		q := tl.Q()
		q.Submit = t
		dc := &DecisionContext{Now: t, Sim: s, P: p, PID: pid, Q: q, PStarted: started, PStart: st, WindowStart: tl.Start(),
			JobIndex: tl.JobIndex(), local: local}
		prob := 1.0
		if pmax < 1 {
			if prob, err = fc.ProbLate(ctx, dc); err != nil {
				return fu, err
			}
			pmax = max(pmax, prob)
		}
		_, r, err := tl.QOutcome(ctx, t, pEnd)
		if err != nil {
			return fu, err
		}
		fu.prob = append(fu.prob, prob)
		fu.est = append(fu.est, re.Score(dc))
		fu.rSec = append(fu.rSec, r)
	}
	fu.probes = len(probes)
	return fu, nil
}
