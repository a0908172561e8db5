package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mirage-hpc/mirage/internal/atomicfile"

	"github.com/mirage-hpc/mirage/ingest/synth"
	"github.com/spf13/cobra"
)

func newSynthCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "synth [flags] -o FILE",
		Short: "Generate a synthetic, LS6-like workload as sacct or SWF text",
		Long: `Generate a deterministic synthetic workload whose statistics resemble a GPU
partition like TACC Lonestar6's gpu-a100 (node mix, time limits, heavy-tailed
run times, timeouts, jobs cancelled while pending, diurnal and weekly cycles,
a target utilisation). The same flags and seed give byte-identical output.
The data is synthetic: no real job is copied.`,
		GroupID:     "data",
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "synth"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSynth(cmd, g)
		},
	}
	f := cmd.Flags()
	d := defaultConfig().Synth
	f.Int("jobs", d.Jobs, "number of jobs")
	f.Uint64("seed", d.Seed, "random seed")
	f.Int("partition-nodes", d.PartitionNodes, partitionNodesUsage+" (the synthetic cluster's)")
	addRenamedFlag(f, "nodes", "partition-nodes")
	f.String("format", d.Format, "output format: sacct (--parsable2) or swf")
	f.StringP("output", "o", "", "output file (required; - for stdout)")
	f.Float64("utilisation", d.Utilisation, "target share of busy node-seconds, the offered load, in (0, 4]: 1 or more overloads the partition (the queue grows without bound)")
	f.String("tz", d.TZ, "IANA zone of the printed local times")
	f.String("start", d.Start, "first submit time, local (YYYY-MM-DDTHH:MM:SS)")
	f.String("cluster", d.Cluster, "cluster name")
	f.Bool("steps", false, "sacct: emit .batch and .extern step rows")
	return cmd
}

func runSynth(cmd *cobra.Command, g *globalOptions) error {
	cfg := g.cfg.Synth
	if cfg.Output == "" {
		return usagef("synth: -o FILE is required")
	}
	if cfg.Output != "-" {
		if err := checkOutput("synth -o", cfg.Output, outputFile); err != nil {
			return err
		}
	}
	if cfg.Jobs < 0 || cfg.PartitionNodes <= 0 || cfg.Utilisation <= 0 || cfg.Utilisation > 4 {
		return usagef("synth: want --jobs >= 0, --partition-nodes > 0 and 0 < --utilisation <= 4")
	}
	loc, err := time.LoadLocation(cfg.TZ)
	if err != nil {
		return usagef("%s %q: %w", settingName(cmd, "tz"), cfg.TZ, err)
	}
	start, err := time.ParseInLocation("2006-01-02T15:04:05", cfg.Start, loc)
	if err != nil {
		return usagef("--start %q: %w", cfg.Start, err)
	}
	opts := synth.DefaultOptions()
	opts.Jobs, opts.Seed, opts.Nodes = cfg.Jobs, cfg.Seed, cfg.PartitionNodes
	opts.Utilisation, opts.Location, opts.Start = cfg.Utilisation, loc, start
	opts.Cluster, opts.Steps = cfg.Cluster, cfg.Steps
	write := synth.WriteSacct
	switch cfg.Format {
	case "sacct":
	case "swf":
		write = synth.WriteSWF
	default:
		return usagef("synth: --format %q: want sacct or swf", cfg.Format)
	}
	if cfg.Output == "-" {
		bw := bufio.NewWriterSize(g.stdout, 1<<20)
		if _, err = write(bw, opts); err == nil {
			err = bw.Flush()
		}
		return err
	}
	st, err := writeAtomic(cfg.Output, func(w io.Writer) (synth.Stats, error) { return write(w, opts) })
	if err != nil {
		return err
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(map[string]any{"output": cfg.Output, "format": cfg.Format, "stats": st}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	_, err = fmt.Fprintf(g.stdout, "wrote %d synthetic jobs (%s) to %s\n", cfg.Jobs, cfg.Format, cfg.Output)
	return err
}

// writeAtomic writes a file through a temporary file renamed into place,
// returning what write returns.
func writeAtomic[T any](path string, write func(io.Writer) (T, error)) (T, error) {
	var v T
	err := atomicfile.Write(path, func(w io.Writer) error {
		var err error
		v, err = write(w)
		return err
	})
	return v, err
}
