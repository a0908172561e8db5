package replay

import (
	"context"
	"time"

	"github.com/mirage-hpc/mirage/sim"
)

// Run replays in's trace, the jobs submitted in [o.From, o.To), at their
// real submissions with their real run times, and compares the simulated
// waits with the real ones: mean and median absolute error, Spearman
// correlation, the share within a factor of 2, overall and per month (in
// o.Zone). A trace that does not fit the partition is an error wrapping
// sim.ErrUnfit (unless o.AllowSkip); a cancelled ctx stops the replay
// with ctx's error.
//
// A profile with partitions replays each partition on its own pool
// (sim.Profile.Split): the summary's figures are over every partition's
// jobs, Partitions gives each one's.
func Run(ctx context.Context, in In, o Options) (Summary, error) {
	sum, _, err := run(ctx, in, o)
	return sum, err
}

// run is Run, with the waits it compared.
func run(ctx context.Context, in In, o Options) (Summary, poolWaits, error) {
	if len(in.Profile.Partitions) > 0 {
		return runPartitions(ctx, in, o)
	}
	return runPool(ctx, in, o)
}

// poolWaits are the waits a pool's replay compared (Run's waits).
type poolWaits struct {
	actual, simulated []int64
	months            []string
	// submit are the jobs' submissions (Unix seconds).
	submit []int64
}

// runPool replays in as one pool of in.Profile.Config.Nodes nodes.
func runPool(ctx context.Context, in In, o Options) (Summary, poolWaits, error) {
	rs, err := prepare(ctx, in, window{from: o.From, to: o.To, allowSkip: o.AllowSkip, flag: o.PartitionFlag, log: o.Logger}, false)
	if err != nil {
		return Summary{}, poolWaits{}, err
	}
	cfg, tab, conv := rs.cfg, rs.table, rs.conv
	sum := Summary{Jobs: tab.Len(), Nodes: cfg.Nodes, Conversion: conv, Config: cfg, CapacitySteps: len(cfg.Capacity),
		Fit: rs.fit, Warnings: rs.warnings}
	if in.Profile.InferDependencies != nil {
		sum.InferredDependencies = &conv.Inference
	}
	began := time.Now()
	r, err := replayProgress(ctx, cfg, tab, o.Progress)
	if err != nil {
		return Summary{}, poolWaits{}, err
	}
	sum.Work = r.work
	sum.WallSec = time.Since(began).Seconds()
	sum.Events = r.events
	if sum.WallSec > 0 {
		sum.EventsPerSec = float64(r.events) / sum.WallSec
	}
	actual, simulated, months, submit := waits(&sum, tab, &r, o.Zone)
	if len(actual) == 0 {
		sum.NotCompared = notCompared(conv, tab, r.starts)
		sum.Warnings = append(sum.Warnings, sum.NotCompared)
	}
	// The fidelity needs only the waits now: let the job table go before
	// CompareWaits ranks them.
	tab, rs.table, r = nil, nil, replayed{}
	fid := sim.CompareWaits(actual, simulated, months)
	sum.Compared = fid.Jobs
	if fid.Jobs > 0 {
		sum.WaitMAESec, sum.WaitMedianAbsErrSec, sum.Within2x = &fid.MAESec, &fid.MedianAbsErrSec, &fid.Within2x
		if fid.Jobs >= 2 { // a rank correlation needs two jobs
			sum.WaitSpearman = &fid.Spearman
		}
	}
	sum.PerMonth = fid.PerMonth
	return sum, poolWaits{actual, simulated, months, submit}, nil
}

// waits counts the zero and long waits of the replayed jobs into sum and
// returns the real and simulated waits (seconds) of the jobs that started
// in both, with their submission months in loc (nil: UTC).
func waits(sum *Summary, tab *sim.Table, r *replayed, loc *time.Location) (actual, simulated []int64, months []string, submit []int64) {
	if loc == nil {
		loc = time.UTC
	}
	starts := r.starts
	n := 0 // the jobs compared: the slices below are made to size once
	for i := range tab.Len() {
		if r.job(tab, i).TraceStart != 0 && starts[i] >= 0 {
			n++
		}
	}
	actual, simulated, months, submit = make([]int64, 0, n), make([]int64, 0, n), make([]string, 0, n), make([]int64, 0, n)
	month := monthNames{loc: loc}
	for i := range tab.Len() {
		j := r.job(tab, i)
		countWaits(sum, j, starts[i])
		if j.TraceStart == 0 || starts[i] < 0 {
			continue
		}
		actual = append(actual, j.TraceStart-j.Submit)
		simulated = append(simulated, starts[i]-j.Submit)
		months = append(months, month.of(j.Submit))
		submit = append(submit, j.Submit)
	}
	return actual, simulated, months, submit
}
