package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
)

// runTrainForecast chooses the forecast's τ and the runtime estimate's
// margin on the training windows (evaluate.TrainForecast) and writes
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
	tjobs, err := trace.ReadAllContext(cmd.Context(), c.Trace)
	if err != nil {
		return err
	}
	if _, err := checkProtocolFit(spec, tjobs, c.AllowSkip, partitionFlag(c.Study, "--partition-nodes"), g.log()); err != nil {
		return fmt.Errorf("train --model forecast: %w", err)
	}
	jobs, fo, err := spec.Prepare(tjobs)
	if err != nil {
		if errors.Is(err, features.ErrOptions) {
			return usageError{err}
		}
		return err
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	m, err := evaluate.TrainForecast(cmd.Context(), tjobs, jobs, c.RuntimeModel, evaluate.ForecastTrainOptions{
		Features: fo, Stride: c.Stride, K: c.Rollouts, Seed: c.Seed, ResampleDays: c.ResampleDays, Correlation: c.Correlation, OverlapBudgetH: c.OverlapBudget.Hours(), Workers: workers,
		Protocol: spec.Name, Version: version,
		Progress: func(done, total int) {
			if done%20 == 0 || done == total {
				g.log().Info("forecast", "windows", done, "of", total)
			}
		},
	})
	if errors.Is(err, features.ErrOptions) || errors.Is(err, evaluate.ErrPolicy) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if err := evaluate.WriteForecastManifest(c.Output, m); err != nil {
		return err
	}
	wall := time.Since(began).Seconds()
	if g.cfg.JSON {
		b, err := json.MarshalIndent(map[string]any{"model": evaluate.ForecastKind, "output": c.Output, "wall_sec": wall, "manifest": m}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "forecast: %d windows x %d chain sizes, K = %d, resample %d days, correlation %g, %.1f s\n", m.Windows, len(fo.ChainNodes), m.K, m.ResampleDays, m.Correlation, wall)
	for _, op := range []*train.OperatingPoint{m.Forecast, m.RuntimeEstimate} {
		fmt.Fprintf(g.stdout, "  %s (budget %g h):\n", op.Rule, op.BudgetH)
		for _, n := range fo.ChainNodes {
			p := op.For(n)
			fmt.Fprintf(g.stdout, "    %d nodes: %s = %.4g: reduction %.1f%%, mean overlap %.2f h, within budget %v\n",
				n, op.Param, p.Value, 100*p.InterruptionReduction, p.MeanOverlapH, p.WithinBudget)
		}
	}
	_, err = fmt.Fprintf(g.stdout, "wrote %s\n", c.Output)
	return err
}
