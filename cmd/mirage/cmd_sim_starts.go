package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train/jobruntime"
)

func newSimStartsCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "starts --trace T.parquet [--from DAY --to DAY] [--runtime-model DIR] [-o DIR] [flags]",
		Short: "Score start-time predictions at submission against the trace's real starts",
		Long: `Replay the whole trace and, at the submission of every job submitted in
[--from, --to), ask the backfill planner when it would start, the way
squeue --start answers at submission: with every running and pending job's time
limit (Slurm's estimate), with run times predicted from its user's last 2 jobs
(history), and with the median of a run-time model (--runtime-model, from
mirage train --model runtime); with --forecast-rollouts K also the median start
of K Monte Carlo rollouts of the queue (every running and pending job's run time
drawn from the model, conditioned on the time it has run, as the forecast policy
does; no future arrival). Each prediction is scored against the job's real
start in the trace: within 1 minute, within 10 minutes, predicted wait within a
factor of 2 of the real wait, mean and median absolute error. The replay's own
start (it knows every true run time, no estimate does) is scored too: the
simulator's floor. Jobs that never ran in the trace are left out.

This is the figure a center compares with its own squeue --start.
-o DIR writes DIR/starts.json (the scores) and DIR/starts.parquet (one row per
job).

` + exitCodesHelp,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "sim"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimStarts(cmd, g)
		},
	}
	addReplayFlags(cmd.Flags())
	cmd.Flags().Lookup("from").Usage = "first submission whose start is predicted (YYYY-MM-DD or RFC 3339, in --tz); the replay starts at the trace's beginning"
	cmd.Flags().Lookup("to").Usage = "end of the submissions whose starts are predicted (exclusive)"
	cmd.Flags().String("runtime-model", "", "run-time model directory (mirage train --model runtime): adds its median as a predictor")
	cmd.Flags().StringP("output", "o", "", "output directory for starts.json and starts.parquet (optional)")
	cmd.Flags().Int("forecast-rollouts", 0, "with --runtime-model: add the forecast median over this many rollouts per job (0 = none; 32 is the forecast policy's)")
	return cmd
}

// startsSummary is the JSON of `mirage sim starts`.
type startsSummary struct {
	From int64 `json:"from"`
	To   int64 `json:"to,omitempty"`
	// Predictors are scored in this order: slurm (limits), history,
	// runtime-model (with --runtime-model), forecast (with
	// --forecast-rollouts), replay.
	Predictors []startsScore `json:"predictors"`
	Config     sim.Config    `json:"config"`
	// Fit is how the trace fits the partition, and Warnings what the
	// scores cannot be trusted for (jobs skipped as too wide, demand far
	// above the partition's capacity).
	Fit      sim.Fit  `json:"fit"`
	Warnings []string `json:"warnings,omitempty"`
}

type startsScore struct {
	Name string `json:"name"`
	sim.StartAccuracy
}

// startRow is one job of starts.parquet: times in Unix seconds, 0 where
// the predictor gave none.
type startRow struct {
	JobID        string `parquet:"job_id"`
	Submit       int64  `parquet:"submit"`
	Start        int64  `parquet:"start"`
	SlurmEst     int64  `parquet:"est_slurm"`
	HistoryEst   int64  `parquet:"est_history"`
	RuntimeEst   int64  `parquet:"est_runtime_model"`
	ForecastEst  int64  `parquet:"est_forecast"`
	ReplayStart  int64  `parquet:"replay_start"`
	Nodes        int32  `parquet:"nodes"`
	TimelimitSec int64  `parquet:"timelimit_sec"`
}

func runSimStarts(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Sim
	from, to := c.From, c.To
	c.From, c.To = "", "" // the replay covers the whole trace
	if c.Output != "" {
		if err := checkOutput("sim starts -o", c.Output, outputIntoDir); err != nil {
			return err
		}
	}
	if c.ForecastRollouts < 0 || c.ForecastRollouts > 0 && c.RuntimeModel == "" {
		return usagef("sim starts: --forecast-rollouts %d: want >= 0, with --runtime-model", c.ForecastRollouts)
	}
	var model *jobruntime.Model
	if c.RuntimeModel != "" {
		m, err := jobruntime.Open(c.RuntimeModel)
		if err != nil {
			return fmt.Errorf("--runtime-model: %w", err)
		}
		model = m
	}
	rs, err := prepareReplay(cmd, g, &c, "sim starts", true)
	if err != nil {
		return err
	}
	var lo, hi int64
	if from != "" {
		t, err := parseWhen(from, rs.loc)
		if err != nil {
			return err
		}
		lo = t.Unix()
	}
	if to != "" {
		t, err := parseWhen(to, rs.loc)
		if err != nil {
			return err
		}
		hi = t.Unix()
	}
	ctx := cmd.Context()

	hist := append([]sim.Job(nil), rs.jobs...)
	sim.PredictRunTimes(hist, sim.RunTimeHistory{})
	byHist, err := sim.EstimateStarts(ctx, rs.cfg, hist, lo, hi)
	if err != nil {
		return err
	}
	var byModel []sim.StartEstimate
	if model != nil {
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
		if c.ForecastRollouts > 0 {
			rt, err := evaluate.NewRunTimes(c.RuntimeModel, rs.tjobs, mj, false)
			if err != nil {
				return err
			}
			f := &evaluate.Forecaster{RT: rt, K: c.ForecastRollouts, Seed: 1, Correlation: evaluate.DefaultCorrelation}
			extra = f.MedianStart
		}
		if byModel, err = sim.EstimateStartsWith(ctx, rs.cfg, mj, lo, hi, extra); err != nil {
			return err
		}
	}

	// Score the jobs that really started.
	var submit, real []int64
	cols := map[string][]int64{}
	oks := map[string][]bool{}
	add := func(name string, at int64, ok bool) {
		cols[name] = append(cols[name], at)
		oks[name] = append(oks[name], ok)
	}
	var rows []startRow
	for k, e := range byHist {
		j := &rs.jobs[e.Job]
		if j.TraceStart == 0 {
			continue
		}
		submit, real = append(submit, j.Submit), append(real, j.TraceStart)
		add("slurm", e.Limits, e.LimitsOK)
		add("history", e.Pred, e.PredOK)
		row := startRow{JobID: j.Name, Submit: j.Submit, Start: j.TraceStart, ReplayStart: max(e.Replay, 0),
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
			if c.ForecastRollouts > 0 {
				add("forecast", m.Extra, m.ExtraOK)
				if m.ExtraOK {
					row.ForecastEst = m.Extra
				}
			}
		}
		add("replay", e.Replay, e.Replay >= 0)
		rows = append(rows, row)
	}
	sum := startsSummary{From: lo, To: hi, Config: rs.cfg, Fit: rs.fit, Warnings: rs.warnings}
	for _, name := range []string{"slurm", "history", "runtime-model", "forecast", "replay"} {
		if _, ok := cols[name]; !ok {
			continue
		}
		sum.Predictors = append(sum.Predictors, startsScore{Name: name, StartAccuracy: sim.ScoreStarts(submit, real, cols[name], oks[name])})
	}
	if c.Output != "" {
		if err := writeStarts(c.Output, sum, rows); err != nil {
			return err
		}
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "start-time predictions at submission, %d jobs that ran (replayed %d jobs on %d nodes)\n", len(submit), len(rs.jobs), rs.cfg.Nodes)
	fmt.Fprintf(g.stdout, "%-14s %8s %10s %10s %10s %8s %9s %8s\n", "predictor", "no est.", "<= 1 min", "<= 10 min", "within 2x", "MAE h", "median h", "bias h")
	for _, p := range sum.Predictors {
		fmt.Fprintf(g.stdout, "%-14s %8d %9.1f%% %9.1f%% %9.1f%% %8.2f %9.2f %8.2f\n", p.Name, p.NoEstimate,
			100*p.Within1Min, 100*p.Within10Min, 100*p.Within2x, p.MAESec/3600, p.MedianAbsErrSec/3600, p.BiasSec/3600)
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(g.stdout, "warning: %s\n", w)
	}
	if c.Output != "" {
		fmt.Fprintf(g.stdout, "wrote %s and %s\n", filepath.Join(c.Output, "starts.json"), filepath.Join(c.Output, "starts.parquet"))
	}
	return nil
}

func writeStarts(dir string, sum startsSummary, rows []startRow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil { // its parent was checked before any work
		return fmt.Errorf("sim starts -o %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "starts.parquet"), func(w io.Writer) error {
		pw := parquet.NewGenericWriter[startRow](w, parquet.Compression(&parquet.Zstd))
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		return pw.Close()
	}); err != nil {
		return fmt.Errorf("starts.parquet: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, "starts.json"), append(b, '\n'))
}
