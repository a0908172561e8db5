package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/mirage-hpc/mirage/sim/replay"
	"github.com/spf13/cobra"
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
job).`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "sim"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimStarts(cmd, g)
		},
	}
	addReplayFlags(cmd.Flags(), true)
	cmd.Flags().Lookup("from").Usage = "first submission whose start is predicted (YYYY-MM-DD or RFC 3339, in --tz); the replay starts at the trace's beginning"
	cmd.Flags().Lookup("to").Usage = "end of the submissions whose starts are predicted (exclusive)"
	cmd.Flags().String("runtime-model", "", "run-time model directory (mirage train --model runtime): adds its median as a predictor")
	cmd.Flags().StringP("output", "o", "", "output directory for starts.json and starts.parquet (optional)")
	cmd.Flags().Int("forecast-rollouts", 0, "with --runtime-model: add the forecast median over this many rollouts per job (0 = none; 32 is the forecast policy's)")
	return cmd
}

func runSimStarts(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Sim
	if c.Output != "" {
		if err := checkOutput("sim starts -o", c.Output, outputIntoDir); err != nil {
			return err
		}
	}
	if c.ForecastRollouts < 0 || c.ForecastRollouts > 0 && c.RuntimeModel == "" {
		return usagef("sim starts: --forecast-rollouts %d: want >= 0, with --runtime-model", c.ForecastRollouts)
	}
	in, _, from, to, err := replayIn(cmd, c, "sim starts")
	if err != nil {
		return err
	}
	sum, err := replay.Starts(cmd.Context(), in, replay.StartsOptions{From: from, To: to, AllowSkip: c.AllowSkip, Logger: g.log(),
		RuntimeModel: c.RuntimeModel, ForecastRollouts: c.ForecastRollouts, OutDir: c.Output})
	if err != nil {
		return unfit("sim starts", err)
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "start-time predictions at submission, %d jobs that ran (replayed %d jobs on %d nodes)\n", sum.Scored, sum.Replayed, sum.Config.Nodes)
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
