package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/train"
)

// runTrainForecast chooses the forecast's τ and the runtime estimate's
// margin on the training windows (evaluate.FitForecast) and writes
// DIR/forecast.json.
func runTrainForecast(cmd *cobra.Command, g *globalOptions, c TrainConfig) error {
	if c.Trace == "" || (c.Protocol == "" && c.Study == "") || c.Output == "" || c.RuntimeModel == "" {
		return usagef("train --model forecast: --trace, --study (or --protocol), --runtime-model and -o are required")
	}
	if err := checkOutput("train -o", c.Output, outputDir); err != nil {
		return err
	}
	if c.Stride < 0 || c.Rollouts < 0 || c.ResampleDays < 0 || c.OverlapBudget < 0 || c.Correlation < 0 || c.Correlation > 1 {
		return usagef("train --model forecast: --stride %d, --rollouts %d, --resample-days %d, --overlap-budget %s: want >= 0; --correlation %g: want [0, 1]", c.Stride, c.Rollouts, c.ResampleDays, c.OverlapBudget, c.Correlation)
	}
	if err := checkStudyTrace(c.Study, c.Trace); err != nil {
		return err
	}
	spec, err := featuresProtocol(FeaturesConfig{Protocol: c.Protocol, Study: c.Study, Profile: c.Profile, Period: "train", Start: c.Start, Windows: c.Windows,
		Interval: c.Interval, ChainNodes: c.ChainNodes, PartitionNodes: c.PartitionNodes})
	if err != nil {
		return err
	}
	began := time.Now()
	fit, err := evaluate.FitForecast(cmd.Context(), c.Trace, spec, c.RuntimeModel, c.Output, evaluate.ForecastFitOptions{
		Train: evaluate.ForecastTrainOptions{Stride: c.Stride, K: c.Rollouts, Seed: c.Seed, ResampleDays: c.ResampleDays, Correlation: c.Correlation,
			OverlapBudgetH: c.OverlapBudget.Hours(), Workers: c.Workers, Version: version},
		AllowSkip: c.AllowSkip, PartitionFlag: partitionFlag(c.Study, "--partition-nodes"), Logger: g.log(),
	})
	if errors.Is(err, sim.ErrUnfit) {
		return fmt.Errorf("train --model forecast: %w", err)
	}
	if err != nil {
		return err
	}
	m := fit.Manifest
	wall := time.Since(began).Seconds()
	if g.cfg.JSON {
		b, err := json.MarshalIndent(map[string]any{"model": evaluate.ForecastKind, "output": c.Output, "wall_sec": wall, "manifest": m}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "forecast: %d windows x %d chain sizes, K = %d, resample %d days, correlation %g, %.1f s\n", m.Windows, len(fit.ChainNodes), m.K, m.ResampleDays, m.Correlation, wall)
	for _, op := range []*train.OperatingPoint{m.Forecast, m.RuntimeEstimate} {
		fmt.Fprintf(g.stdout, "  %s (budget %g h):\n", op.Rule, op.BudgetH)
		for _, n := range fit.ChainNodes {
			p := op.For(n)
			fmt.Fprintf(g.stdout, "    %d nodes: %s = %.4g: reduction %.1f%%, mean overlap %.2f h, within budget %v\n",
				n, op.Param, p.Value, 100*p.InterruptionReduction, p.MeanOverlapH, p.WithinBudget)
		}
	}
	_, err = fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return err
}
