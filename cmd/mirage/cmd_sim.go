package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/replay"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newSimCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "sim",
		Short:   "Simulate the scheduler on a trace",
		GroupID: "sim",
	}
	cmd.AddCommand(newSimReplayCommand(g), newSimStartsCommand(g), newSimCalibrateCommand(g), newSimProfileCommand(g))
	return cmd
}

func newSimReplayCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "replay --trace T.parquet [flags]",
		Short: "Replay a trace in the simulator and compare simulated with real waits",
		Long: `Replay every job of a trace at its real submission time with its real run time,
and compare the simulated waits with the real ones: mean and median absolute
error, Spearman correlation, the share within a factor of 2 (for real waits over
a minute), per month; plus the wall time and events per second. This is how a
center decides whether to trust the simulator for its cluster.`,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "sim"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimReplay(cmd, g)
		},
	}
	addReplayFlags(cmd.Flags(), true)
	return cmd
}

// addReplayFlags adds the flags of a replay (the sim section) to f;
// renamed adds the old names of renamed flags too (a command that had
// them keeps them for a release; a new one has none).
func addReplayFlags(f *pflag.FlagSet, renamed bool) {
	d := defaultConfig().Sim
	f.String("trace", "", "trace file (Parquet, from mirage ingest); required")
	f.String("profile", d.Profile, "simulator profile: a built-in one ("+strings.Join(sim.ProfileNames(), ", ")+"; mirage sim profile show NAME prints it) or a profile file (YAML); a profile that infers dependencies or capacity (ls6 does) turns on --infer-deps or --infer-capacity unless they are given")
	f.Int("partition-nodes", d.PartitionNodes, partitionNodesUsage+" (0 = the profile's)")
	if renamed {
		addRenamedFlag(f, "nodes", "partition-nodes")
	}
	f.String("backfill", d.Backfill, "backfill flavour: conservative, easy, none (empty = the profile's)")
	f.String("cancelled", d.Cancelled, "jobs cancelled while pending: leave or run-zero (empty = the profile's)")
	f.Int("max-jobs-per-user", d.MaxJobsPerUser, "running jobs per user (0 = unlimited; -1 = the profile's)")
	f.Int("bf-max-job-test", d.BfMaxJobTest, "backfill: jobs planned per pass, Slurm's bf_max_job_test (0 = all; -1 = the profile's, 3000)")
	f.Int("bf-max-job-user", d.BfMaxJobUser, "backfill: jobs of one user planned per pass, Slurm's bf_max_job_user (0 = no limit; -1 = the profile's)")
	f.Int("max-nodes-per-user", d.MaxNodesPerUser, "running nodes per user (0 = unlimited; -1 = the profile's)")
	f.Bool("infer-deps", d.InferDeps, "infer dependencies: hold a job that started right after a same-user job ended until that job ends (unset: the profile's, with its settings)")
	f.Bool("infer-capacity", d.InferCapacity, "infer a capacity timeline from the trace's busy nodes (the most busy at once per bucket; unset: the profile's)")
	f.Duration("capacity-bucket", d.CapacityBucket, "capacity inference: bucket width (0 = the profile's, else 24h)")
	f.Bool("capacity-lookahead", false, "capacity inference: the old non-causal inference (each bucket's peak from its start) instead of the causal one (the previous bucket's peak, raised when a higher busy count is first seen); false = the profile's (causal unless it says otherwise)")
	f.Int("capacity-smooth", d.CapacitySmooth, "capacity inference: widen each bucket's maximum over this many buckets on either side (-1 = the profile's, else 0)")
	f.Int("capacity-headroom", d.CapacityHeadroom, "capacity inference: nodes added to each bucket's maximum (-1 = the profile's, else 0)")
	f.Duration("capacity-min-pending", d.CapacityMinPending, "capacity inference: lower capacity only in buckets where a job pending then waited at least this long (0 = everywhere; -1s = the profile's, else 0)")
	f.String("from", "", "first submission to replay (YYYY-MM-DD or RFC 3339, in --tz)")
	f.String("to", "", "end of the submissions to replay (exclusive)")
	f.String("tz", d.TZ, "IANA zone of --from, --to and the per-month figures")
	f.Bool("allow-skip", false, "replay even when the jobs wider than the partition (skipped) are more than 1% of the jobs or node-hours (otherwise exit status 2)")
	addProgressFlag(f)
}

// simProfile resolves the sim section's simulator profile: --profile (a
// built-in name or a profile file) with the flags that override it
// (simOverrides).
func simProfile(c SimConfig, changed func(flag string) bool) (sim.Profile, error) {
	prof, err := sim.LoadProfile(c.Profile)
	if err != nil {
		return prof, usageError{err}
	}
	return simOverrides(c, changed).Apply(prof)
}

// simOverrides are the sim section's overrides of its profile. A flag
// left at its "the profile's" value (an empty string, -1, 0 for
// --partition-nodes and --capacity-bucket) keeps the profile's setting;
// the inferences are the profile's unless --infer-deps or
// --infer-capacity is given (changed reports whether a flag was), or
// turned on by the configuration.
func simOverrides(c SimConfig, changed func(flag string) bool) sim.ProfileOverrides {
	inference := func(on bool, flag string) *bool {
		switch {
		case on:
			return &on
		case changed(flag):
			return &on // off
		}
		return nil
	}
	return sim.ProfileOverrides{
		PartitionNodes: c.PartitionNodes, Backfill: c.Backfill, Cancelled: c.Cancelled,
		MaxJobsPerUser: c.MaxJobsPerUser, MaxNodesPerUser: c.MaxNodesPerUser, BfMaxJobTest: c.BfMaxJobTest, BfMaxJobUser: c.BfMaxJobUser,
		InferDeps: inference(c.InferDeps, "infer-deps"), InferCapacity: inference(c.InferCapacity, "infer-capacity"),
		CapacityBucket: c.CapacityBucket, CapacitySmooth: c.CapacitySmooth, CapacityHeadroom: c.CapacityHeadroom,
		CapacityMinPending: c.CapacityMinPending, CapacityLookahead: c.CapacityLookahead,
	}
}

func parseWhen(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("time %q: want YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or RFC 3339", s)
}

// replayIn resolves the sim section into a replay's input, the zone of
// its times and its window of submissions ([from, to), Unix seconds; 0 =
// open); name is the command, for messages.
func replayIn(cmd *cobra.Command, c SimConfig, name string) (in replay.In, loc *time.Location, from, to int64, err error) {
	if c.Trace == "" {
		return in, nil, 0, 0, usagef("%s: --trace is required", name)
	}
	prof, err := simProfile(c, cmd.Flags().Changed)
	if err != nil {
		return in, nil, 0, 0, err
	}
	if loc, err = time.LoadLocation(c.TZ); err != nil {
		return in, nil, 0, 0, usagef("%s %q: %w", settingName(cmd, "tz"), c.TZ, err)
	}
	for _, w := range []struct {
		s   string
		dst *int64
	}{{c.From, &from}, {c.To, &to}} {
		if w.s == "" {
			continue
		}
		t, err := parseWhen(w.s, loc)
		if err != nil {
			return in, nil, 0, 0, err
		}
		*w.dst = t.Unix()
	}
	return replay.In{Trace: c.Trace, Profile: prof}, loc, from, to, nil
}

// unfit names the command in an error that refuses the trace's fit
// (sim.ErrUnfit); other errors are returned as they are.
func unfit(name string, err error) error {
	if errors.Is(err, sim.ErrUnfit) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

func runSimReplay(cmd *cobra.Command, g *globalOptions) error {
	c := g.cfg.Sim
	if os.Getenv("GOGC") == "" {
		// A replay's heap is long-lived tables (jobs, their states, the
		// index) that grow slowly: collecting at 10 % growth instead of
		// 100 % costs little CPU and keeps the peak near the live heap
		// (scripts/bench-replay-memory.sh).
		defer debug.SetGCPercent(debug.SetGCPercent(10))
	}
	in, loc, from, to, err := replayIn(cmd, c, "sim replay")
	if err != nil {
		return err
	}
	bar := newProgressBar(g.stderr, c.Progress, g.cfg.JSON)
	sum, err := replay.Run(cmd.Context(), in, replay.Options{From: from, To: to, Zone: loc, AllowSkip: c.AllowSkip,
		Progress: replayBar(bar, loc), Logger: g.log()})
	bar.finish()
	if err != nil {
		return unfit("sim replay", err)
	}
	if g.cfg.JSON {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.stdout, string(b))
		return err
	}
	fmt.Fprintf(g.stdout, "replayed %d jobs on %d nodes: %d events in %.3f s (%.0f events/s)\n",
		sum.Jobs, sum.Nodes, sum.Events, sum.WallSec, sum.EventsPerSec)
	w := sum.Work
	fmt.Fprintf(g.stdout, "passes: %d main (%d jobs looked at), %d backfill (%d jobs tested, at most %d in one; %d planned, %d passes stopped early); %d users evaluated; at most %d jobs pending at once\n",
		w.MainPasses, w.MainTested, w.BackfillPasses, w.BackfillTested, w.BackfillMaxTested, w.BackfillTested-w.BackfillSkipped, w.BackfillStopped, w.UsersEvaluated, w.MaxPending)
	if sum.Compared > 0 {
		fmt.Fprintf(g.stdout, "waits of %d jobs that ran: MAE %.2f h, median |error| %.2f h, Spearman %s, within 2x %.1f%%\n",
			sum.Compared, *sum.WaitMAESec/3600, *sum.WaitMedianAbsErrSec/3600, spearmanText(sum.Compared, sum.WaitSpearman), 100**sum.Within2x)
	} else {
		fmt.Fprintf(g.stdout, "waits: none compared (no MAE, median, Spearman or within-2x figures)\n")
	}
	for _, m := range sum.PerMonth {
		fmt.Fprintf(g.stdout, "  %s  jobs %5d  MAE %6.2f h  median %6.2f h  Spearman %6s  within 2x %5.1f%%\n",
			m.Month, m.Jobs, m.MAESec/3600, m.MedianAbsErrSec/3600, spearmanText(m.Jobs, &m.Spearman), 100*m.Within2x)
	}
	for _, p := range sum.Partitions {
		inferred := ""
		if p.NodesInferred {
			inferred = " (from the trace)"
		}
		fmt.Fprintf(g.stdout, "partition %s: %d jobs on %d nodes%s; waits of %d jobs: Spearman %s, within 2x %s\n",
			p.Name, p.Jobs, p.Nodes, inferred, p.Compared, spearmanText(p.Compared, p.WaitSpearman), shareText(p.Within2x))
	}
	if inf := sum.InferredDependencies; inf != nil {
		fmt.Fprintf(g.stdout, "inferred dependencies: %d jobs\n", inf.Jobs)
	}
	if in.Profile.InferCapacity != nil {
		fmt.Fprintf(g.stdout, "inferred capacity: %d steps\n", sum.CapacitySteps)
	}
	fmt.Fprintf(g.stdout, "started within a minute: simulated %d, real %d; waited over an hour: simulated %d, real %d\n",
		sum.ZeroWaitSim, sum.ZeroWaitReal, sum.WaitedOverHourSim, sum.WaitedOverHourReal)
	for _, w := range sum.Warnings {
		fmt.Fprintf(g.stdout, "warning: %s\n", w)
	}
	return nil
}

// shareText formats a share as a percentage, "-" when undefined.
func shareText(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// spearmanText formats a Spearman correlation over n jobs: "-" when it is
// undefined (fewer than two jobs).
func spearmanText(n int, rho *float64) string {
	if n < 2 || rho == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *rho)
}

// replayBar is a replay.Options Progress callback showing the simulated
// clock in loc on bar; nil when bar shows nothing.
func replayBar(bar *progressBar, loc *time.Location) func(at int64, started, total int) {
	if !bar.on {
		return nil
	}
	return func(at int64, started, total int) {
		bar.set("replay: simulated %s, %d of %d jobs started", time.Unix(at, 0).In(loc).Format("2006-01-02 15:04"), started, total)
	}
}
