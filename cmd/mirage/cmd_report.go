package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mirage-hpc/mirage/reports"
)

// reportOptions are mirage report's flags.
type reportOptions struct {
	out             string
	trace           string
	predictions     []string
	predictionsNote string
	dqn             []string
	title           string
	study           string
	budget          time.Duration
	decision        time.Duration
	seed            uint64
	resamples       int
	analysis        string
}

func (o *reportOptions) AddFlags(f *pflag.FlagSet) {
	d := reports.DefaultOptions()
	f.StringVarP(&o.out, "out", "o", "", "report directory, written as a whole (default DIR/report)")
	f.StringVar(&o.trace, "trace", "", "trace file (Parquet) the windows came from: its name, dates and wait-time CDF")
	f.StringArrayVar(&o.predictions, "predictions", nil, "mirage predict output (Parquet, labelled samples) for the predicted-vs-actual r figure; repeatable")
	f.StringVar(&o.predictionsNote, "predictions-note", "", "text appended to the predicted-vs-actual figure's caption (e.g. which samples)")
	f.StringArrayVar(&o.dqn, "dqn", nil, "DQN model directory (mirage train --model dqn) whose training curve (curve.csv) to draw; repeatable")
	f.StringVar(&o.title, "title", d.Title, "page title")
	f.StringVar(&o.study, "study", "", "study name shown in the summary")
	f.DurationVar(&o.budget, "overlap-budget", 0, "mean overlap per window the recommendation must stay within (default: the models' operating points', else 1h)")
	f.DurationVar(&o.decision, "decision", 0, "decision interval shown in the summary (default: the protocol's grid, else 10m)")
	f.Uint64Var(&o.seed, "seed", d.Seed, "bootstrap seed")
	f.IntVar(&o.resamples, "resamples", d.Resamples, "bootstrap resamples")
	f.StringVar(&o.analysis, "analysis", "", "link (relative to the report directory) to the trace analysis page")
}

func newReportCommand(g *globalOptions) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write an evaluation's report: a summary with recommendations, tables and figures",
		Long: `Read DIR/metrics.json and DIR/windows.csv (from mirage evaluate -o DIR) and write the
report directory (-o, default DIR/report) as a whole: report.html, one
self-contained page, and each figure as PNG and SVG.

The page opens with a summary: the study (trace and its dates, protocol,
simulator profile, partition, chain sizes, decision interval, overlap budget)
and, per chain size, the recommended policy (the largest interruption reduction
with mean overlap within the budget) with its interruption, overlap and
node-hours per window, each with a 95 % bootstrap interval over the windows
(--seed, --resamples), and its distance to the oracles. Then tables per chain
size and load class with counts and intervals, and the figures: the trade-off
frontier (sweeps as curves, the recommendation ringed, the budget as a line,
off-scale points at the edge with their value), the CDFs of signed r per load
class, the zero-interruption share per policy and load class with intervals,
the trace's wait CDF on a log time axis (--trace), and the per-window strip;
with --predictions, predicted vs actual r; for each DQN model (dqn:MODEL
policies and --dqn), its training curve; for each model with an operating
point, its training-CV frontier; for classifiers, a reliability diagram.

Model directories are those the evaluation recorded (relative to DIR), so the
command gives the same page from any working directory; a model directory that
cannot be found or read is an error. Prints report.html's path.`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		GroupID: "models",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, g, o, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runReport(cmd *cobra.Command, g *globalOptions, o reportOptions, dir string) error {
	opts := reports.DefaultOptions()
	opts.Trace, opts.Title, opts.Study = o.trace, o.title, o.study
	opts.Predictions, opts.PredictionsNote, opts.DQN = o.predictions, o.predictionsNote, o.dqn
	opts.OverlapBudgetH, opts.Decision = o.budget.Hours(), o.decision
	opts.Seed, opts.Resamples, opts.AnalysisHref = o.seed, o.resamples, o.analysis
	opts.Logger, opts.Version = g.log(), version
	out, flag := o.out, "report -o"
	if out == "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("report %s: no such evaluation directory", dir)
		}
		out, flag = filepath.Join(dir, "report"), "report (default -o DIR/report)"
	}
	if err := checkOutput(flag, out, outputDir, reports.DirFiles...); err != nil {
		return err
	}
	rep, err := reports.Render(cmd.Context(), dir, out, opts)
	if err != nil {
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
