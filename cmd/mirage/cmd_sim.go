package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newSimCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "sim",
		Short:   "Simulate the scheduler on a trace",
		GroupID: "sim",
	}
	cmd.AddCommand(newSimReplayCommand(g), newSimStartsCommand(g), newSimProfileCommand(g))
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
center decides whether to trust the simulator for its cluster.

` + exitCodesHelp,
		Args:        usageArgs(cobra.NoArgs),
		Annotations: map[string]string{configSection: "sim"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimReplay(cmd, g)
		},
	}
	addReplayFlags(cmd.Flags())
	return cmd
}

// addReplayFlags adds the flags of a replay (the sim section) to f.
func addReplayFlags(f *pflag.FlagSet) {
	d := defaultConfig().Sim
	f.String("trace", "", "trace file (Parquet, from mirage ingest); required")
	f.String("profile", d.Profile, "simulator profile: a built-in one ("+strings.Join(sim.ProfileNames(), ", ")+"; mirage sim profile show NAME prints it) or a profile file (YAML); a profile that infers dependencies or capacity (ls6 does) turns on --infer-deps or --infer-capacity unless they are given")
	f.Int("partition-nodes", d.PartitionNodes, partitionNodesUsage+" (0 = the profile's)")
	addRenamedFlag(f, "nodes", "partition-nodes")
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
// built-in name or a profile file) with the flags that override it. A
// flag left at its "the profile's" value (an empty string, -1, 0 for
// --partition-nodes and --capacity-bucket) keeps the profile's setting; the
// inferences are the profile's unless --infer-deps or --infer-capacity is
// given (changed reports whether a flag was), or turned on by the
// configuration.
func simProfile(c SimConfig, changed func(flag string) bool) (sim.Profile, error) {
	prof, err := sim.LoadProfile(c.Profile)
	if err != nil {
		return prof, usageError{err}
	}
	cfg := &prof.Config
	if c.PartitionNodes > 0 {
		cfg.Nodes = c.PartitionNodes
	}
	if c.Backfill != "" {
		if cfg.Backfill.Flavour, err = sim.ParseFlavour(c.Backfill); err != nil {
			return prof, usageError{err}
		}
	}
	if c.Cancelled != "" {
		if cfg.Cancelled, err = sim.ParseCancelPolicy(c.Cancelled); err != nil {
			return prof, usageError{err}
		}
	}
	for _, o := range []struct {
		flag string
		v    int
		dst  *int
	}{
		{"--max-jobs-per-user", c.MaxJobsPerUser, &cfg.Limits.MaxJobsPerUser},
		{"--max-nodes-per-user", c.MaxNodesPerUser, &cfg.Limits.MaxNodesPerUser},
		{"--bf-max-job-test", c.BfMaxJobTest, &cfg.Backfill.MaxJobTest},
		{"--bf-max-job-user", c.BfMaxJobUser, &cfg.Backfill.MaxJobUser},
	} {
		switch {
		case o.v < -1:
			return prof, usagef("%s %d: want -1 (the profile's), 0 (none) or a count", o.flag, o.v)
		case o.v >= 0:
			*o.dst = o.v
		}
	}
	if err := cfg.Validate(); err != nil {
		return prof, usageError{err}
	}
	// A flag given is c's value; otherwise the configuration or the
	// profile turns an inference on.
	if c.InferDeps || !changed("infer-deps") && prof.InferDependencies != nil {
		prof.InferDependencies = prof.DependencyOptions()
	} else {
		prof.InferDependencies = nil
	}
	if !c.InferCapacity && (changed("infer-capacity") || prof.InferCapacity == nil) {
		prof.InferCapacity = nil
		return prof, nil
	}
	co, err := capacityOptions(c, prof)
	if err != nil {
		return prof, err
	}
	prof.InferCapacity = &co
	return prof, nil
}

// capacityOptions returns the capacity inference of the sim section: the
// profile's (or the causal default), with the --capacity-* flags that are
// not at their "the profile's" values. Nodes is left 0 (the partition
// size, when used).
func capacityOptions(c SimConfig, prof sim.Profile) (sim.CapacityOptions, error) {
	co := prof.CapacityOptions(0)
	switch {
	case c.CapacityBucket != 0 && c.CapacityBucket < time.Second,
		c.CapacitySmooth < -1, c.CapacityHeadroom < -1, c.CapacityMinPending < -time.Second:
		return co, usagef("--capacity-bucket %s, --capacity-smooth %d, --capacity-headroom %d, --capacity-min-pending %s: want a bucket of at least 1s (0 = the profile's) and the others >= 0 (-1, -1s = the profile's)",
			c.CapacityBucket, c.CapacitySmooth, c.CapacityHeadroom, c.CapacityMinPending)
	}
	if c.CapacityBucket > 0 {
		co.BucketSec = int64(c.CapacityBucket / time.Second)
	}
	if c.CapacitySmooth >= 0 {
		co.Smooth = c.CapacitySmooth
	}
	if c.CapacityHeadroom >= 0 {
		co.Headroom = c.CapacityHeadroom
	}
	if c.CapacityMinPending >= 0 {
		co.MinPendingSec = int64(c.CapacityMinPending / time.Second)
	}
	if c.CapacityLookahead {
		co.Causal = false
	}
	return co, nil
}

func parseWhen(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("time %q: want YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or RFC 3339", s)
}

// replaySummary is the JSON of `mirage sim replay`.
type replaySummary struct {
	Jobs         int     `json:"jobs"`
	Nodes        int     `json:"nodes"`
	Events       int64   `json:"events"`
	WallSec      float64 `json:"wall_sec"`
	EventsPerSec float64 `json:"events_per_sec"`
	// The fidelity figures of the Compared jobs; absent (nil) when no job
	// had a real wait to compare (NotCompared says why).
	WaitMAESec          *float64 `json:"wait_mae_sec,omitempty"`
	WaitMedianAbsErrSec *float64 `json:"wait_median_abs_err_sec,omitempty"`
	WaitSpearman        *float64 `json:"wait_spearman,omitempty"`
	Within2x            *float64 `json:"within_2x,omitempty"`
	Compared            int      `json:"compared"`
	// NotCompared, when Compared is 0, says why no job had a real wait to
	// compare.
	NotCompared string `json:"not_compared,omitempty"`
	// Fit is how the trace fits the partition (wide jobs, demand), and
	// Warnings what the replay's figures cannot be trusted for.
	Fit                  sim.Fit             `json:"fit"`
	Warnings             []string            `json:"warnings,omitempty"`
	PerMonth             []sim.MonthFidelity `json:"per_month"`
	InferredDependencies *sim.Inference      `json:"inferred_dependencies,omitempty"`
	Conversion           sim.Conversion      `json:"conversion"`
	Config               sim.Config          `json:"config"`
	// CapacitySteps is the number of inferred capacity steps (with
	// --infer-capacity; they are listed in Config.Capacity).
	CapacitySteps int `json:"capacity_steps"`
	// ZeroWaitSim counts the replayed jobs that started in the simulation
	// less than a minute after their trace submission (or before it, by
	// minute rounding); ZeroWaitReal the jobs that ran in the trace less
	// than a minute after submission. WaitedOverHourSim and
	// WaitedOverHourReal count waits over an hour likewise.
	ZeroWaitSim        int `json:"zero_wait_sim"`
	ZeroWaitReal       int `json:"zero_wait_real"`
	WaitedOverHourSim  int `json:"waited_over_hour_sim"`
	WaitedOverHourReal int `json:"waited_over_hour_real"`
	// Work is what the scheduling passes did (their count and the jobs
	// they looked at) and the deepest queue.
	Work sim.Work `json:"work"`
}

// replaySetup is a trace made ready to replay: the simulator
// configuration, the trace's jobs and the simulator's (with inferred
// dependencies and capacity when asked), and the zone of the times.
type replaySetup struct {
	cfg      sim.Config
	fit      sim.Fit
	warnings []string
	tjobs    []trace.Job
	jobs     []sim.Job  // with keepTrace
	table    *sim.Table // without keepTrace: the jobs in the simulator's layout
	conv     sim.Conversion
	opts     sim.FromTraceOptions
	loc      *time.Location
}

// prepareReplay reads the sim section's trace and builds what a replay
// needs; name is the command, for messages. With keepTrace the trace's
// jobs are kept (replaySetup.tjobs) and converted (replaySetup.jobs);
// without, the trace is converted while it is read into a sim.Table
// (replaySetup.table), so a replay of millions of jobs holds only that.
func prepareReplay(cmd *cobra.Command, g *globalOptions, c *SimConfig, name string, keepTrace bool) (*replaySetup, error) {
	if c.Trace == "" {
		return nil, usagef("%s: --trace is required", name)
	}
	prof, err := simProfile(*c, cmd.Flags().Changed)
	if err != nil {
		return nil, err
	}
	cfg := prof.Config
	c.InferDeps, c.InferCapacity = prof.InferDependencies != nil, prof.InferCapacity != nil
	loc, err := time.LoadLocation(c.TZ)
	if err != nil {
		return nil, usagef("--tz %q: %w", c.TZ, err)
	}
	opts := sim.FromTraceOptions{MaxNodes: cfg.Nodes}
	if c.From != "" {
		t, err := parseWhen(c.From, loc)
		if err != nil {
			return nil, err
		}
		opts.From = t.Unix()
	}
	if c.To != "" {
		t, err := parseWhen(c.To, loc)
		if err != nil {
			return nil, err
		}
		opts.To = t.Unix()
	}
	opts.Infer = prof.InferDependencies
	ctx := cmd.Context() // checked between the steps, for SIGINT
	rs := &replaySetup{cfg: cfg, opts: opts, loc: loc}
	if keepTrace {
		if rs.tjobs, err = trace.ReadAllContext(ctx, c.Trace); err != nil {
			return nil, err
		}
		rs.fit = sim.CheckFit(rs.tjobs, cfg.Nodes, opts.From, opts.To)
	} else {
		fc := sim.NewFitCounter(cfg.Nodes, opts.From, opts.To)
		if rs.table, rs.conv, err = sim.ReadTraceTable(ctx, c.Trace, opts, fc.Add); err != nil {
			return nil, err
		}
		rs.fit = fc.Fit()
	}
	if rs.warnings, err = checkFit(rs.fit, c.AllowSkip, "--partition-nodes", g.log()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if keepTrace {
		if rs.jobs, rs.conv, err = sim.FromTrace(rs.tjobs, opts); err != nil {
			return nil, err
		}
	}
	if c.InferCapacity {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		jobs := rs.jobs
		if jobs == nil {
			jobs = rs.table.Jobs()
		}
		if rs.cfg.Capacity, err = inferCapacity(ctx, c.Trace, rs.tjobs, jobs, opts, *prof.InferCapacity, cfg.Nodes); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rs, nil
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
	rs, err := prepareReplay(cmd, g, &c, "sim replay", false)
	if err != nil {
		return err
	}
	cfg, tab, conv, loc := rs.cfg, rs.table, rs.conv, rs.loc
	sum := replaySummary{Jobs: tab.Len(), Nodes: cfg.Nodes, Conversion: conv, Config: cfg, CapacitySteps: len(cfg.Capacity),
		Fit: rs.fit, Warnings: rs.warnings}
	if c.InferDeps {
		sum.InferredDependencies = &conv.Inference
	}
	began := time.Now()
	bar := newProgressBar(g.stderr, c.Progress, g.cfg.JSON)
	r, err := replayProgress(cmd.Context(), cfg, tab, bar, rs.loc)
	bar.finish()
	if err != nil {
		return err
	}
	starts := r.starts
	sum.Work = r.work
	sum.WallSec = time.Since(began).Seconds()
	sum.Events = r.events
	if sum.WallSec > 0 {
		sum.EventsPerSec = float64(r.events) / sum.WallSec
	}
	n := 0 // the jobs compared: the slices below are made to size once
	for i := range tab.Len() {
		if r.job(tab, i).TraceStart != 0 && starts[i] >= 0 {
			n++
		}
	}
	actual, simulated, months := make([]int64, 0, n), make([]int64, 0, n), make([]string, 0, n)
	month := monthNames{loc: loc}
	for i := range tab.Len() {
		j := r.job(tab, i)
		countWaits(&sum, j, starts[i])
		if j.TraceStart == 0 || starts[i] < 0 {
			continue
		}
		actual = append(actual, j.TraceStart-j.Submit)
		simulated = append(simulated, starts[i]-j.Submit)
		months = append(months, month.of(j.Submit))
	}
	if n == 0 {
		sum.NotCompared = notCompared(conv, tab, starts)
		sum.Warnings = append(sum.Warnings, sum.NotCompared)
	}
	// The fidelity needs only the waits now: let the job table go before
	// CompareWaits ranks them.
	tab, rs.table, starts, r = nil, nil, nil, replayed{}
	fid := sim.CompareWaits(actual, simulated, months)
	sum.Compared = fid.Jobs
	if fid.Jobs > 0 {
		sum.WaitMAESec, sum.WaitMedianAbsErrSec, sum.Within2x = &fid.MAESec, &fid.MedianAbsErrSec, &fid.Within2x
		if fid.Jobs >= 2 { // a rank correlation needs two jobs
			sum.WaitSpearman = &fid.Spearman
		}
	}
	sum.PerMonth = fid.PerMonth
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
	if inf := sum.InferredDependencies; inf != nil {
		fmt.Fprintf(g.stdout, "inferred dependencies: %d jobs\n", inf.Jobs)
	}
	if c.InferCapacity {
		fmt.Fprintf(g.stdout, "inferred capacity: %d steps\n", sum.CapacitySteps)
	}
	fmt.Fprintf(g.stdout, "started within a minute: simulated %d, real %d; waited over an hour: simulated %d, real %d\n",
		sum.ZeroWaitSim, sum.ZeroWaitReal, sum.WaitedOverHourSim, sum.WaitedOverHourReal)
	for _, w := range sum.Warnings {
		fmt.Fprintf(g.stdout, "warning: %s\n", w)
	}
	return nil
}

// spearmanText formats a Spearman correlation over n jobs: "-" when it is
// undefined (fewer than two jobs).
func spearmanText(n int, rho *float64) string {
	if n < 2 || rho == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *rho)
}

// monthNames formats Unix times as "2006-01" months in loc, one string
// per month (a replay compares millions of jobs).
type monthNames struct {
	loc   *time.Location
	names map[int]string
}

func (m *monthNames) of(unix int64) string {
	t := time.Unix(unix, 0).In(m.loc)
	k := t.Year()*12 + int(t.Month())
	name, ok := m.names[k]
	if !ok {
		if m.names == nil {
			m.names = map[int]string{}
		}
		name = t.Format("2006-01")
		m.names[k] = name
	}
	return name
}

// inferCapacity infers the capacity timeline of a partition of nodes
// nodes from the trace with co. Inside a --from/--to window it looks at
// the whole trace, so jobs submitted before the window but running in it
// count as busy.
//
// tjobs are the trace's jobs when they are held (nil: the trace at path
// is read again for a window).
func inferCapacity(ctx context.Context, path string, tjobs []trace.Job, jobs []sim.Job, opts sim.FromTraceOptions, co sim.CapacityOptions, nodes int) ([]sim.CapacityStep, error) {
	if opts.From != 0 || opts.To != 0 {
		opts.From, opts.To = 0, 0
		var all []sim.Job
		var err error
		if tjobs != nil {
			all, _, err = sim.FromTrace(tjobs, opts)
		} else {
			all, _, err = sim.ReadTrace(ctx, path, opts, nil)
		}
		if err != nil {
			return nil, err
		}
		jobs = all
	}
	co.Nodes = nodes
	return sim.InferCapacity(jobs, co), nil
}

// countWaits adds job j, simulated to start at start (-1: never), to the
// summary's zero-wait and over-an-hour counts.
func countWaits(sum *replaySummary, j sim.Job, start int64) {
	if start >= 0 {
		if w := start - j.Submit; w < 60 {
			sum.ZeroWaitSim++
		} else if w > 3600 {
			sum.WaitedOverHourSim++
		}
	}
	if j.TraceStart > 0 {
		if w := j.TraceStart - j.Submit; w < 60 {
			sum.ZeroWaitReal++
		} else if w > 3600 {
			sum.WaitedOverHourReal++
		}
	}
}
