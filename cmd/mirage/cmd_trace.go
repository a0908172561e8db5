package main

import (
	"github.com/mirage-hpc/mirage/trace"
	"github.com/spf13/cobra"
)

func newTraceCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "trace",
		Short:   "Inspect trace files",
		GroupID: "data",
	}
	cmd.AddCommand(newTraceStatsCommand(g))
	return cmd
}

func newTraceStatsCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "stats FILE.parquet",
		Short: "Print a trace's size, span, users, node and limit mix, waits and run times",
		Long: `Print statistics of a trace file: jobs, submit span, users, node-count and
time-limit distributions, wait, run-time and time-limit quantiles (p50/p75/p90/p99 and mean:
seconds as 9s, minutes as 38.8m, hours as 5.04h; in seconds under --json), the share of jobs that reached their time limit, the jobs
cancelled before starting ("never ran"), and the jobs that ran from a start
the trace did not record ("start unknown", an SWF wait time of -1: in run
times and at-limit counts, not in waits); per partition when there are
several.`,
		Args:        usageArgs(cobra.ExactArgs(1)),
		Annotations: map[string]string{configSection: "trace"},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := trace.Open(args[0])
			if err != nil {
				return err
			}
			defer r.Close()
			st, err := trace.ComputeStats(cmd.Context(), r)
			if err != nil {
				return err
			}
			if g.cfg.JSON {
				return st.WriteJSON(g.stdout)
			}
			return st.WriteText(g.stdout)
		},
	}
}
