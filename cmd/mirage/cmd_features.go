package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/digest"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/spf13/cobra"
)

func newFeaturesCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "features",
		Short:   "Generate labelled queue-state samples for the service chain",
		GroupID: "sim",
	}
	cmd.AddCommand(newFeaturesBuildCommand(g))
	return cmd
}

func newFeaturesBuildCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "build --trace T.parquet --protocol NAME [overrides] -o S.parquet",
		Short: "Simulate windows, probe submission times of the successor and write labelled samples",
		Long: `For each window of the protocol and each chain size, simulate the cluster, submit
the predecessor P after the warm-up, and at each probe time compute the queue-state
features a live provisioner could know, fork the simulation, submit the successor Q
and record r = Q.start - P.end and Q's wait. Writes Parquet (one row per probe; see
features/README.md for the columns and metadata).

With --runtime-model DIR (from train --model runtime, or a forecast directory from
train --model forecast; with --study, the study's features.runtime_model when the flag
is not given) every row gets one more column, q_est_model_start_minus_p_end_sec:
the scheduler's estimate of Q's start planned with the model's median run times of the
running and pending jobs, minus P's expected end. Jobs of the model's training period
get out-of-fold predictions. The model's directory and SHA-256 go into the file's
metadata and into models trained on it; evaluate --policy forest:DIR or xgboost:DIR
then computes the column with the same run-time model and refuses a changed one.

Protocols: ` + strings.Join(features.ProtocolNames, ", ") + `.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "features"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFeaturesBuild(cmd, g)
		},
	}
	f := cmd.Flags()
	d := defaultConfig().Features
	f.String("trace", "", "trace file (Parquet, from mirage ingest); required")
	f.String("protocol", d.Protocol, "preset: "+strings.Join(features.ProtocolNames, ", "))
	f.String("study", "", "study (built-in name or file; see mirage study show): replaces --protocol, and its trace.zone is checked against the trace's")
	f.String("period", d.Period, "with --study: the period whose windows to build, train or validation")
	f.String("profile", "", profileOverrideHelp(""))
	f.StringP("output", "o", "", "output Parquet file; required")
	f.String("start", "", "first window start, YYYY-MM-DDTHH:MM:SS in the protocol's zone (empty = the protocol's)")
	f.Int("windows", 0, "windows per chain size (0 = the protocol's)")
	f.Duration("interval", 0, "time between window starts (0 = the protocol's)")
	f.String("probes", "", "labelled times per window: grid (every decision time a policy sees, see --grid-dense) or a count evenly spaced as in the Mirage artifact (empty = the protocol's: grid for ls6, 7 for mirage-ls6)")
	f.Duration("grid-dense", 0, "grid: span before P's expected end labelled at every 10-minute decision (0 = 24h)")
	f.Duration("grid-sparse", 0, "grid: spacing of the labels before that span, a multiple of 10 minutes (0 = 1h)")
	f.String("chain-nodes", "", chainNodesUsage+" (empty = the protocol's)")
	f.String("mode", "", "window start: cold or warm (empty = the protocol's)")
	f.Duration("q-time-min", 0, qTimeMinUsage)
	f.Int("partition-nodes", 0, partitionNodesUsage+" (0 = the protocol's)")
	addRenamedFlag(f, "nodes", "partition-nodes")
	f.Bool("allow-skip", false, "build even when the jobs wider than the partition (skipped) are more than 1% of the jobs or node-hours (otherwise exit status 2)")
	f.Int("workers", 0, "windows simulated at once (0 = GOMAXPROCS); the output does not depend on it")
	f.Uint64("seed", 0, "seed recorded in the output (the generation is deterministic)")
	f.String("runtime-model", "", "run-time model (train --model runtime) or forecast directory: add the column q_est_model_start_minus_p_end_sec (empty = the study's features.runtime_model with --study, else none)")
	f.Bool("wide", false, "add the wide columns ("+strings.Join(features.WideNames(), ", ")+"): what predicts long waits for a job of Q's shape, from the queue at the decision time (a study's features.wide with --study)")
	addProgressFlag(f)
	return cmd
}

// featuresSummary is the JSON of `mirage features build`.
type featuresSummary struct {
	Windows          int     `json:"windows"`
	ChainSizes       int     `json:"chain_sizes"`
	Samples          int     `json:"samples"`
	WallSec          float64 `json:"wall_sec"`
	SamplesPerSec    float64 `json:"samples_per_sec"`
	Output           string  `json:"output"`
	Protocol         string  `json:"protocol"`
	Features         int     `json:"features"`
	Interrupted      int     `json:"interrupted"`
	InterruptedShare float64 `json:"interrupted_share"`
	MeanRSec         float64 `json:"mean_r_sec"`
	TraceSHA256      string  `json:"trace_sha256"`
	// Warnings are the input checks' findings (jobs wider than the
	// partition, demand far above the trace's usage), as logged.
	Warnings []string `json:"warnings,omitempty"`
}

// featuresProtocol applies the command-line overrides to the preset (or
// the study's period).
func featuresProtocol(c FeaturesConfig) (features.Protocol, error) {
	var p features.Protocol
	var err error
	if c.Study != "" {
		s, err := resolveStudy(c.Study)
		if err != nil {
			return p, err
		}
		if p, err = s.Protocol(c.Period); err != nil {
			return p, usageError{err}
		}
	} else if p, err = features.LookupProtocol(c.Protocol); err != nil {
		return p, usageError{err}
	}
	o := features.Overrides{Start: c.Start, Windows: c.Windows, Interval: c.Interval, Probes: c.Probes,
		GridDense: c.GridDense, GridSparse: c.GridSparse, Mode: c.Mode, PartitionNodes: c.PartitionNodes, QTimeMin: c.QTimeMin}
	if c.Profile != "" {
		prof, err := sim.LoadProfile(c.Profile)
		if err != nil {
			return p, usageError{err}
		}
		o.Profile = &prof
	}
	if c.ChainNodes != "" {
		for _, s := range strings.Split(c.ChainNodes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return p, usagef("--chain-nodes %q: want positive integers separated by commas", c.ChainNodes)
			}
			o.ChainNodes = append(o.ChainNodes, n)
		}
	}
	if p, err = o.Apply(p); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

func runFeaturesBuild(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Features
	if c.Trace == "" || c.Output == "" {
		return usagef("features build: --trace and -o are required")
	}
	if err := checkOutput("features build -o", c.Output, outputFile); err != nil {
		return err
	}
	if c.Workers < 0 {
		return usagef("features build: --workers %d: want >= 1 (0 = GOMAXPROCS)", c.Workers)
	}
	p, err := featuresProtocol(c)
	if err != nil {
		return err
	}
	if err := checkStudyTrace(c.Study, c.Trace); err != nil {
		return err
	}
	if c.Wide {
		p.Wide = true
	}
	traceDigest, err := digest.File(c.Trace)
	if err != nil {
		return err
	}
	in := features.In{Trace: c.Trace, Protocol: p, TraceDigest: traceDigest}
	if c.RuntimeModel == "" && c.Study != "" { // the study's features.runtime_model
		st, err := resolveStudy(c.Study)
		if err != nil {
			return err
		}
		c.RuntimeModel = st.RuntimeModelPath()
	}
	if c.RuntimeModel != "" {
		if in.RunTimes, err = evaluate.FeatureRunTimeModel(c.RuntimeModel); err != nil {
			return fmt.Errorf("features build: %w", err)
		}
	}
	bar := newProgressBar(g.stderr, c.Progress, g.cfg.JSON)
	began := time.Now()
	s, err := features.Run(cmd.Context(), in, features.RunOptions{Workers: c.Workers, Logger: g.log(),
		Progress: bar.windows("features"), AllowSkip: c.AllowSkip, PartitionFlag: partitionFlag(c.Study, "--partition-nodes"),
		Seed: c.Seed, Output: c.Output})
	bar.finish()
	if err != nil {
		return err
	}
	sum := featuresSummary{
		Windows: s.Windows, ChainSizes: s.ChainSizes, Samples: s.Samples,
		WallSec: time.Since(began).Seconds(), Output: s.Output, Protocol: s.Protocol,
		Features: s.Features, Interrupted: s.Interrupted, InterruptedShare: s.InterruptedShare,
		MeanRSec: s.MeanRSec, TraceSHA256: s.TraceDigest, Warnings: s.Warnings,
	}
	if sum.WallSec > 0 {
		sum.SamplesPerSec = float64(sum.Samples) / sum.WallSec
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "%s: %d windows x %d chain sizes, %d samples (%d features) in %.2f s (%.0f samples/s)\n",
		sum.Protocol, sum.Windows, sum.ChainSizes, sum.Samples, sum.Features, sum.WallSec, sum.SamplesPerSec)
	fmt.Fprintf(g.stdout, "interrupted (r > 0): %.1f%%, mean r %.2f h\nwrote %s\n",
		100*sum.InterruptedShare, sum.MeanRSec/3600, sum.Output)
	return nil
}
