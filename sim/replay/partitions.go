package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// PartitionSummary is one partition's replay (Summary.Partitions).
type PartitionSummary struct {
	Name string `json:"name"`
	// NodesInferred says that the partition's size came from the trace
	// (its profile entry has nodes 0).
	NodesInferred bool `json:"nodes_inferred,omitempty"`
	Summary
}

// runPartitions replays each partition of in.Profile on its own pool
// and sums them: the counts add up, the fidelity figures are over every
// partition's compared jobs (pooled), Config is the profile's (its
// Nodes the partitions' total). A partition whose jobs do not fit is an
// error naming it; a partition without jobs is left out.
func runPartitions(ctx context.Context, in In, o Options) (Summary, poolWaits, error) {
	tjobs := in.Jobs
	if tjobs == nil {
		var err error
		if tjobs, err = trace.ReadAllContext(ctx, in.Trace); err != nil {
			return Summary{}, poolWaits{}, err
		}
	}
	prof := in.Profile
	var all Summary
	all.Config = prof.Config
	all.Config.Nodes = 0
	var pooled poolWaits
	fits := sim.Fit{}
	for _, pj := range prof.Split(tjobs) {
		if len(pj.Index) == 0 {
			continue
		}
		sub := prof
		sub.Partitions, sub.Config.Nodes = nil, pj.Partition.Nodes
		s, w, err := runPool(ctx, In{Trace: in.Trace, Jobs: pj.Jobs(tjobs), Profile: sub}, o)
		if err != nil {
			return Summary{}, poolWaits{}, fmt.Errorf("partition %s: %w", pj.Partition.Name, err)
		}
		all.Partitions = append(all.Partitions, PartitionSummary{Name: pj.Partition.Name, NodesInferred: pj.NodesInferred, Summary: s})
		all.Jobs += s.Jobs
		all.Nodes += s.Nodes
		all.Config.Nodes += s.Nodes
		all.Events += s.Events
		all.WallSec += s.WallSec
		all.CapacitySteps += s.CapacitySteps
		all.ZeroWaitSim += s.ZeroWaitSim
		all.ZeroWaitReal += s.ZeroWaitReal
		all.WaitedOverHourSim += s.WaitedOverHourSim
		all.WaitedOverHourReal += s.WaitedOverHourReal
		addConversion(&all.Conversion, s.Conversion)
		addWork(&all.Work, s.Work)
		fits.Jobs += s.Fit.Jobs
		fits.WideJobs += s.Fit.WideJobs
		fits.KnownWaits += s.Fit.KnownWaits
		fits.StartUnknown += s.Fit.StartUnknown
		fits.NeverRan += s.Fit.NeverRan
		for _, w := range s.Warnings {
			all.Warnings = append(all.Warnings, "partition "+pj.Partition.Name+": "+w)
		}
		pooled.actual = append(pooled.actual, w.actual...)
		pooled.simulated = append(pooled.simulated, w.simulated...)
		pooled.months = append(pooled.months, w.months...)
		pooled.submit = append(pooled.submit, w.submit...)
	}
	all.Fit = fits
	if all.WallSec > 0 {
		all.EventsPerSec = float64(all.Events) / all.WallSec
	}
	if prof.InferDependencies != nil {
		inf := all.Conversion.Inference
		all.InferredDependencies = &inf
	}
	fid := sim.CompareWaits(pooled.actual, pooled.simulated, pooled.months)
	all.Compared = fid.Jobs
	if fid.Jobs > 0 {
		all.WaitMAESec, all.WaitMedianAbsErrSec, all.Within2x = &fid.MAESec, &fid.MedianAbsErrSec, &fid.Within2x
		if fid.Jobs >= 2 {
			all.WaitSpearman = &fid.Spearman
		}
	} else {
		all.NotCompared = "no partition had a job with a real wait to compare"
	}
	all.PerMonth = fid.PerMonth
	return all, pooled, nil
}

// addConversion adds partition conversion c to sum: the counts add up
// (Users counts a user once per partition), the skips by reason.
func addConversion(sum *sim.Conversion, c sim.Conversion) {
	sum.Jobs += c.Jobs
	sum.Users += c.Users
	sum.Cancelled += c.Cancelled
	sum.Running += c.Running
	sum.Pending += c.Pending
	sum.StartUnknown += c.StartUnknown
	for _, sk := range c.Skipped {
		i := slices.IndexFunc(sum.Skipped, func(s sim.SkipCount) bool { return s.Reason == sk.Reason })
		if i < 0 {
			sum.Skipped = append(sum.Skipped, sk)
			continue
		}
		sum.Skipped[i].Count += sk.Count
	}
	slices.SortFunc(sum.Skipped, func(a, b sim.SkipCount) int { return strings.Compare(a.Reason, b.Reason) })
	sum.Inference.Jobs += c.Inference.Jobs
	sum.Inference.Waited += c.Inference.Waited
	sum.Inference.WaitedOverHour += c.Inference.WaitedOverHour
	sum.Inference.Candidates += c.Inference.Candidates
}

// addWork adds a partition's scheduling work w to sum (the most tested
// and pending: the most of any partition).
func addWork(sum *sim.Work, w sim.Work) {
	sum.MainPasses += w.MainPasses
	sum.MainTested += w.MainTested
	sum.MainStarted += w.MainStarted
	sum.BackfillPasses += w.BackfillPasses
	sum.BackfillTested += w.BackfillTested
	sum.BackfillMaxTested = max(sum.BackfillMaxTested, w.BackfillMaxTested)
	sum.BackfillStopped += w.BackfillStopped
	sum.BackfillSkipped += w.BackfillSkipped
	sum.UsersEvaluated += w.UsersEvaluated
	sum.MaxPending = max(sum.MaxPending, w.MaxPending)
}
