package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/reports"
)

func newReportCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Draw an evaluation's figures and write a self-contained report.html",
		Long: `Read DIR/metrics.json and DIR/windows.csv (from mirage evaluate -o DIR) and write
into DIR, as PNG and SVG: the CDFs of interruption and of overlap per policy, the
zero-interruption share per policy by load class, and the interruption-overlap
trade-off (θ and margin sweeps as curves, both oracles marked), with a panel
per chain size when there are several; with --trace, the trace's
wait-time CDF; with --predictions (repeatable; mirage predict outputs on labelled
samples), predicted vs actual r, one series per model with its MAE and count;
for each DQN model, its training curve (dqn-curve-NAME: episode return, raw and
as a moving mean over 25 episodes, validation return, loss, ε) from MODEL/curve.csv.
DQN models are the evaluation's dqn:MODEL policies, MODEL read as written
(relative to the current directory; one that cannot be read is skipped with a
warning), and those named with --dqn (repeatable; a --dqn path ending in MODEL
stands for that policy; a missing one is an error). For each model directory the
policies name (forest:MODEL, xgboost:MODEL, slurm-estimate:MODEL, dqn:MODEL and
their sweep variants MODEL@K=V) that has an operating point, its training-CV
frontier (cv-frontier-NAME: mean overlap vs interruption reduction per chain
size, the chosen point and the overlap budget marked); for each classifier
(target interrupt or cliff), its reliability diagram (calibration-NAME: mean
predicted probability vs observed frequency per chain size, Brier score and log
loss in the caption). A model directory that cannot be read is skipped with a
warning. Then write DIR/report.html, one self-contained page (figures inlined,
metric tables per chain size with cost and λ, the frontier, the windows, the
model manifests summarised, each model's operating point per chain size as
chosen on the training windows next to its outcome on the validation windows,
and per classifier its calibration per chain size and per fold), and print its
path.

` + exitCodesHelp,
		Args:    usageArgs(cobra.ExactArgs(1)),
		GroupID: "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, g, args[0])
		},
	}
	f := cmd.Flags()
	f.String("trace", "", "trace file (Parquet) the windows came from, for its wait-time CDF")
	f.StringArray("predictions", nil, "mirage predict output (Parquet, labelled samples) for the predicted-vs-actual r figure; repeatable")
	f.String("predictions-note", "", "text appended to the predicted-vs-actual figure's caption (e.g. which samples)")
	f.StringArray("dqn", nil, "DQN model directory (mirage train --model dqn) whose training curve (curve.csv) to draw; repeatable")
	f.String("title", reports.DefaultOptions().Title, "page title")
	return cmd
}

func runReport(cmd *cobra.Command, g *globalOptions, dir string) error {
	opts := reports.DefaultOptions()
	opts.Trace, _ = cmd.Flags().GetString("trace")
	opts.Title, _ = cmd.Flags().GetString("title")
	opts.Predictions, _ = cmd.Flags().GetStringArray("predictions")
	opts.PredictionsNote, _ = cmd.Flags().GetString("predictions-note")
	opts.DQN, _ = cmd.Flags().GetStringArray("dqn")
	opts.Logger = g.log()
	rep, err := reports.Render(cmd.Context(), dir, opts)
	if err != nil {
		if errors.Is(err, reports.ErrNoEvaluation) || errors.Is(err, reports.ErrNoDQNCurve) {
			return usageError{err}
		}
		return err
	}
	for _, n := range rep.Notes {
		g.log().Info("report", "note", n)
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	_, err = fmt.Fprintln(g.stdout, rep.HTML)
	return err
}
