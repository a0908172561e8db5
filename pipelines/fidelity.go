package pipelines

import (
	"context"
	"fmt"
	"time"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/reports"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/sim/replay"
	"github.com/mirage-hpc/mirage/trace"
)

// FidelityFile is the report stage's record of the fidelity replay
// (replay.Summary, its wall-time figures zeroed).
const FidelityFile = "fidelity.json"

// measureFidelity replays the study's trace over its months (the first
// training window's start to the last validation window's end) with the
// simulator as the study simulates it (features.Protocol.ReplayProfile):
// the wait fidelity the report opens with, and the replay's summary
// (its wall-time figures zeroed, so that the bytes depend only on the
// inputs) written beside the report (FidelityFile).
func measureFidelity(ctx context.Context, s *Study, trainP, valP features.Protocol, o RunOptions) (*reports.Fidelity, replay.Summary, error) {
	prof, err := trainP.ReplayProfile()
	if err != nil {
		return nil, replay.Summary{}, fmt.Errorf("%w: %w", ErrStudy, err)
	}
	from, to, err := studyMonths(trainP, valP)
	if err != nil {
		return nil, replay.Summary{}, err
	}
	loc, err := time.LoadLocation(trainP.TZ)
	if err != nil {
		return nil, replay.Summary{}, err
	}
	in, err := studyReplayIn(ctx, trainP, prof, o.Trace)
	if err != nil {
		return nil, replay.Summary{}, err
	}
	if in.Jobs == nil { // read once: the chains' replay reads them too
		if in.Jobs, err = trace.ReadAllContext(ctx, o.Trace); err != nil {
			return nil, replay.Summary{}, err
		}
	}
	sum, err := replay.Run(ctx, in,
		replay.Options{From: from, To: to, Zone: loc, AllowSkip: true, PartitionFlag: "cluster.nodes:", Logger: o.Logger})
	if err != nil {
		return nil, replay.Summary{}, fmt.Errorf("fidelity replay: %w", err)
	}
	zeroWall(&sum)
	// The trace's own chains, replayed with the same simulator.
	cr, err := analyze.ReplayChains(ctx, in.Jobs, in.Profile, from, to, analyze.DefaultOptions())
	if err != nil {
		return nil, replay.Summary{}, fmt.Errorf("fidelity replay: %w", err)
	}
	source := fmt.Sprintf("a replay of the study's months, %s to %s, simulator profile %s", time.Unix(from, 0).In(loc).Format("2006-01-02"),
		time.Unix(to, 0).In(loc).Format("2006-01-02"), prof.Name)
	f := &reports.Fidelity{Source: source, Jobs: sum.Compared, Spearman: sum.WaitSpearman, Within2x: sum.Within2x}
	// Always: none replayed (Links 0) says the check could not be made.
	f.Chains = &reports.ChainCheck{Links: cr.Links, RealH: cr.RealH, ReactiveH: cr.ReactiveH}
	if sum.WaitMAESec != nil {
		h := *sum.WaitMAESec / 3600
		f.MAEH = &h
	}
	return f, sum, nil
}

// zeroWall zeroes a replay summary's wall-time figures (and its
// partitions'), the only ones that differ between two runs.
func zeroWall(s *replay.Summary) {
	s.WallSec, s.EventsPerSec = 0, 0
	for i := range s.Partitions {
		s.Partitions[i].WallSec, s.Partitions[i].EventsPerSec = 0, 0
	}
}

// studyMonths returns the span of the study's windows, Unix seconds:
// the first training window's start to the end of the last validation
// window (its warm-up and workload).
func studyMonths(trainP, valP features.Protocol) (from, to int64, err error) {
	loc, err := time.LoadLocation(trainP.TZ)
	if err != nil {
		return 0, 0, err
	}
	const layout = "2006-01-02T15:04:05"
	a, err := time.ParseInLocation(layout, trainP.Start, loc)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: periods.train.start: %w", ErrStudy, err)
	}
	b, err := time.ParseInLocation(layout, valP.Start, loc)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: periods.validation.start: %w", ErrStudy, err)
	}
	end := b.Add(time.Duration(max(valP.Windows-1, 0))*valP.Interval + valP.Warmup + valP.Workload)
	return a.Unix(), end.Unix(), nil
}

// studyReplayIn is the replay of the study's trace as its protocol p
// simulates it with prof (features.Protocol.ReplayProfile): every job,
// or, when the chains run in a partition and the profile lists none,
// that partition's jobs on its pool (sim.Profile.PartitionOf).
func studyReplayIn(ctx context.Context, p features.Protocol, prof sim.Profile, path string) (replay.In, error) {
	in := replay.In{Trace: path, Profile: prof}
	if p.Partition == "" || len(prof.Partitions) > 0 {
		return in, nil
	}
	tjobs, err := trace.ReadAllContext(ctx, path)
	if err != nil {
		return in, err
	}
	pj, ok := prof.PartitionOf(tjobs, p.Partition)
	if !ok {
		return in, traceFit(fmt.Errorf("%w: chains.partition %q: no job of the trace runs in it", ErrStudy, p.Partition))
	}
	in.Jobs = pj.Jobs(tjobs)
	if p.Nodes <= 0 {
		in.Profile.Config.Nodes = pj.Partition.Nodes
	}
	return in, nil
}
