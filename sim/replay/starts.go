package replay

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

// StartsOptions configure Starts.
type StartsOptions struct {
	// From and To bound the submissions whose starts are predicted, Unix
	// seconds: [From, To); 0 leaves a side open. The replay covers the
	// whole trace.
	From, To int64
	// AllowSkip, PartitionFlag and Logger are as in Options.
	AllowSkip     bool
	PartitionFlag string
	Logger        *slog.Logger
	// RuntimeModel, when not empty, is a run-time model directory
	// (train/jobruntime) whose median adds the runtime-model predictor.
	RuntimeModel string
	// ForecastRollouts, when > 0 (with RuntimeModel), adds the forecast
	// predictor: the median start over that many Monte Carlo rollouts.
	ForecastRollouts int
	// OutDir, when not empty, receives starts.json (the Summary) and
	// starts.parquet (one row per scored job); it is created if missing.
	OutDir string
}

// StartsSummary is what Starts found: the JSON of `mirage sim starts`
// and its starts.json.
type StartsSummary struct {
	From int64 `json:"from"`
	To   int64 `json:"to,omitempty"`
	// Predictors are scored in this order: slurm (limits), history,
	// runtime-model (with a run-time model), forecast (with rollouts),
	// replay.
	Predictors []StartsScore `json:"predictors"`
	Config     sim.Config    `json:"config"`
	// Fit is how the trace fits the partition, and Warnings what the
	// scores cannot be trusted for (jobs skipped as too wide, demand far
	// above the partition's capacity).
	Fit      sim.Fit  `json:"fit"`
	Warnings []string `json:"warnings,omitempty"`
	// Scored is the number of jobs scored (those that ran in the trace),
	// and Replayed the jobs replayed; neither is in the JSON.
	Scored   int `json:"-"`
	Replayed int `json:"-"`
}

// StartsScore is one predictor's scores.
type StartsScore struct {
	Name string `json:"name"`
	sim.StartAccuracy
}

// Starts replays in's whole trace and, at the submission of every job
// submitted in [o.From, o.To), asks the backfill planner when it would
// start (sim.EstimateStarts): with every running and pending job's time
// limit (slurm), with run times predicted from its user's last jobs
// (history), with a run-time model's median (runtime-model) and the
// forecast's median over rollouts (forecast); the replay's own start is
// the floor (replay). Each prediction is scored against the job's real
// start; jobs that never ran in the trace are left out. A bad model is
// an error naming --runtime-model; a trace that does not fit the
// partition an error wrapping sim.ErrUnfit (unless o.AllowSkip).
func Starts(ctx context.Context, in In, o StartsOptions) (StartsSummary, error) {
	var model *jobruntime.Model
	if o.RuntimeModel != "" {
		m, err := jobruntime.Open(o.RuntimeModel)
		if err != nil {
			return StartsSummary{}, fmt.Errorf("--runtime-model: %w", err)
		}
		model = m
	}
	rs, err := prepare(ctx, in, window{allowSkip: o.AllowSkip, flag: o.PartitionFlag, log: o.Logger}, true)
	if err != nil {
		return StartsSummary{}, err
	}
	hist := append([]sim.Job(nil), rs.jobs...)
	sim.PredictRunTimes(hist, sim.RunTimeHistory{})
	byHist, err := sim.EstimateStarts(ctx, rs.cfg, hist, o.From, o.To)
	if err != nil {
		return StartsSummary{}, err
	}
	var byModel []sim.StartEstimate
	if model != nil {
		if byModel, err = modelStarts(ctx, rs, model, o); err != nil {
			return StartsSummary{}, err
		}
	}
	sum, rows := scoreStarts(rs, byHist, byModel, o.ForecastRollouts > 0)
	sum.From, sum.To = o.From, o.To
	if o.OutDir != "" {
		if err := writeStarts(o.OutDir, sum, rows); err != nil {
			return StartsSummary{}, err
		}
	}
	return sum, nil
}

// modelStarts estimates the starts with the run-time model's medians as
// the jobs' predicted run times, and with o.ForecastRollouts > 0 the
// forecast's median start as well.
func modelStarts(ctx context.Context, rs *setup, model *jobruntime.Model, o StartsOptions) ([]sim.StartEstimate, error) {
	med := map[string]int64{}
	for i, q := range jobruntime.Predict(rs.tjobs, model) {
		if q.OK {
			med[rs.tjobs[i].JobID] = int64(q.P50Sec + 0.5)
		}
	}
	mj := append([]sim.Job(nil), rs.jobs...)
	for i := range mj {
		mj[i].PredRunSec = med[mj[i].Name]
	}
	var extra sim.ExtraStart
	if o.ForecastRollouts > 0 {
		rt, err := evaluate.NewRunTimes(o.RuntimeModel, rs.tjobs, mj, false)
		if err != nil {
			return nil, err
		}
		f := &evaluate.Forecaster{RT: rt, K: o.ForecastRollouts, Seed: 1, Correlation: evaluate.DefaultCorrelation}
		extra = f.MedianStart
	}
	return sim.EstimateStartsWith(ctx, rs.cfg, mj, o.From, o.To, extra)
}

// scoreStarts scores the estimates of the jobs that really started
// (byModel, when not nil, holds the same jobs in the same order as
// byHist) and returns the summary (without From and To) and one row per
// scored job.
func scoreStarts(rs *setup, byHist, byModel []sim.StartEstimate, forecast bool) (StartsSummary, []StartRow) {
	var submit, real []int64
	cols := map[string][]int64{}
	oks := map[string][]bool{}
	add := func(name string, at int64, ok bool) {
		cols[name] = append(cols[name], at)
		oks[name] = append(oks[name], ok)
	}
	var rows []StartRow
	for k, e := range byHist {
		j := &rs.jobs[e.Job]
		if j.TraceStart == 0 {
			continue
		}
		submit, real = append(submit, j.Submit), append(real, j.TraceStart)
		add("slurm", e.Limits, e.LimitsOK)
		add("history", e.Pred, e.PredOK)
		row := StartRow{JobID: j.Name, Submit: j.Submit, Start: j.TraceStart, ReplayStart: max(e.Replay, 0),
			Nodes: j.Nodes, TimelimitSec: j.LimitSec}
		if e.LimitsOK {
			row.SlurmEst = e.Limits
		}
		if e.PredOK {
			row.HistoryEst = e.Pred
		}
		if byModel != nil {
			m := byModel[k] // same jobs, same order
			add("runtime-model", m.Pred, m.PredOK)
			if m.PredOK {
				row.RuntimeEst = m.Pred
			}
			if forecast {
				add("forecast", m.Extra, m.ExtraOK)
				if m.ExtraOK {
					row.ForecastEst = m.Extra
				}
			}
		}
		add("replay", e.Replay, e.Replay >= 0)
		rows = append(rows, row)
	}
	sum := StartsSummary{Config: rs.cfg, Fit: rs.fit, Warnings: rs.warnings, Scored: len(submit), Replayed: len(rs.jobs)}
	for _, name := range []string{"slurm", "history", "runtime-model", "forecast", "replay"} {
		if _, ok := cols[name]; !ok {
			continue
		}
		sum.Predictors = append(sum.Predictors, StartsScore{Name: name, StartAccuracy: sim.ScoreStarts(submit, real, cols[name], oks[name])})
	}
	return sum, rows
}
