package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mirage-hpc/mirage/analyze"
)

// analyzeMemoryLimit is the Go runtime's soft memory limit for mirage
// analyze (bytes) unless GOMEMLIMIT is set.
const analyzeMemoryLimit = 768 << 20

// analyzeOptions are mirage analyze's flags.
type analyzeOptions struct {
	out       string
	nodes     int
	tz        string
	noFigures bool
	opts      analyze.Options
}

// AddFlags adds the flags to f, with analyze.DefaultOptions' defaults.
func (o *analyzeOptions) AddFlags(f *pflag.FlagSet) {
	d := analyze.DefaultOptions()
	o.opts = d
	f.StringVarP(&o.out, "output", "o", "", "output directory (required)")
	f.IntVar(&o.nodes, "partition-nodes", 0, partitionNodesUsage+" (0 = infer a capacity timeline from the busy nodes)")
	f.StringVar(&o.tz, "tz", "", "zone of months, days and hours (default: the zone ingest recorded, else UTC)")
	f.BoolVar(&o.noFigures, "no-figures", false, "write the tables and summary.json only (no figures, no analysis.html)")
	f.IntVar(&o.opts.CapacitySmoothDays, "capacity-smooth-days", d.CapacitySmoothDays, "inferred capacity: the most nodes busy at once within this many days either side")
	f.Int64Var(&o.opts.Chains.LimitSlackSec, "chain-limit-slack", d.Chains.LimitSlackSec, "chains: a predecessor ran to its limit when run time >= limit - min(this, limit/10) seconds, or it timed out")
	f.Int64Var(&o.opts.Chains.MaxSubmitAfterEndSec, "chain-max-submit-after-end", d.Chains.MaxSubmitAfterEndSec, "chains: the successor was submitted at most this many seconds after the predecessor ended")
	f.Int64Var(&o.opts.Chains.MaxOverlapSec, "chain-max-overlap", d.Chains.MaxOverlapSec, "chains: the successor started at most this many seconds before the predecessor ended")
	f.BoolVar(&o.opts.Chains.MatchName, "chain-match-name", d.Chains.MatchName, "chains: link jobs of one user with the same job name")
	f.BoolVar(&o.opts.Chains.MatchShape, "chain-match-shape", d.Chains.MatchShape, "chains: link jobs of one user with the same account, node count and limit")
	f.Int64Var(&o.opts.Replay.MaxJobs, "replay-max-jobs", d.Replay.MaxJobs, "replay (fidelity, chains) only traces of at most this many jobs (< 0: never)")
	f.StringVar(&o.opts.Replay.Profile, "profile", d.Replay.Profile, "simulator profile of the replays: a built-in one (default, mirage-compat, ls6; mirage sim profile show NAME) or a profile file")
	f.IntVar(&o.opts.Replay.MaxChains, "replay-max-chains", d.Replay.MaxChains, "replay the first this many chains (by head submission)")
	f.IntVar(&o.opts.Replay.MaxLinks, "replay-max-links", d.Replay.MaxLinks, "replay at most this many chain links in all")
	f.Int64Var(&o.opts.Replay.OracleStepSec, "oracle-step", d.Replay.OracleStepSec, "oracle: try a successor submission every this many seconds of the predecessor's run")
}

func newAnalyzeCommand(g *globalOptions) *cobra.Command {
	o := &analyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze TRACE.parquet -o DIR",
		Short: "Trace analytics: volume, utilisation, queue, waits, run time vs limit, service chains, fidelity",
		Long: `Read a trace (mirage ingest's Parquet) once, streaming, and write into DIR:
tables as Parquet (volume by month and partition, job sizes, limits, hourly
utilisation and queue depth, daily and weekly profiles, wait distributions by
node count, limit, partition, QOS and month, run time / limit by user class,
service chains with their links and lengths, simulator fidelity by month;
columns in analyze/README.md), summary.json, figures (PNG and SVG) and one
self-contained analysis.html, whose path it prints. A section whose columns the
trace lacks says why it is absent. Traces of at most --replay-max-jobs jobs are
also replayed in the simulator: the fidelity of simulated waits, and the
reactive and oracle outcomes on the detected chains.`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		GroupID: "data",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd, g, o, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runAnalyze(cmd *cobra.Command, g *globalOptions, o *analyzeOptions, path string) error {
	if o.out == "" {
		return usagef("analyze: -o DIR is required")
	}
	if err := checkOutput("analyze -o", o.out, outputDir, analyze.DirFiles...); err != nil {
		return err
	}
	opts := o.opts
	opts.Nodes = o.nodes
	opts.Figures = !o.noFigures
	opts.Logger = g.log()
	if o.tz != "" {
		loc, err := time.LoadLocation(o.tz)
		if err != nil {
			return usagef("--tz %q: %w", o.tz, err)
		}
		opts.Location = loc
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: the garbage collector works harder near it, so the
		// streaming pass stays within the 1 GB budget on 10 M jobs.
		debug.SetMemoryLimit(analyzeMemoryLimit)
	}
	opts.Version = version
	a, err := analyze.Run(cmd.Context(), path, o.out, opts)
	if err != nil {
		return err
	}
	page := filepath.Join(o.out, analyze.Page)
	if g.cfg.JSON {
		b, err := json.MarshalIndent(struct {
			Page string `json:"page,omitempty"`
			*analyze.Analysis
		}{page, a}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	if o.noFigures {
		_, err = fmt.Fprintln(g.stdout, filepath.Join(o.out, analyze.Summary))
		return err
	}
	_, err = fmt.Fprintln(g.stdout, page)
	return err
}
