package replay

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// firstRungMonths is the months every candidate replays: two, so that a
// single odd month does not drop the best setting.
const firstRungMonths = 2

// candidates returns the search space over the base profile: the
// inferences only when the trace has real starts, partitions only when
// its jobs name at least two, each with 1 % of the jobs.
func candidates(base sim.Profile, tjobs []trace.Job, partitions bool) []Candidate {
	parts := map[string]int{}
	for i := range tjobs {
		parts[tjobs[i].Partition]++
	}
	multi := 0
	for _, n := range parts {
		if float64(n) >= 0.01*float64(len(tjobs)) {
			multi++
		}
	}
	bools := func(on bool) []bool {
		if on {
			return []bool{false, true}
		}
		return []bool{false}
	}
	limits := []int{0}
	if l := userLimit(tjobs); l > 0 {
		limits = append(limits, l)
	}
	var out []Candidate
	for _, pr := range []string{"base", "fcfs", "fairshare", "size"} {
		for _, bf := range []string{"conservative", "easy", "none"} {
			for _, cn := range []string{"leave", "run-zero"} {
				for _, ic := range []bool{false, true} {
					for _, id := range []bool{false, true} {
						for _, pt := range bools(partitions && (multi >= 2 || len(base.Partitions) > 0)) {
							for _, ul := range limits {
								for _, mi := range mainIntervals {
									out = append(out, Candidate{Priority: pr, Backfill: bf, Cancelled: cn, InferCapacity: ic, InferDependencies: id,
										Partitions: pt, UserLimit: ul, MainInterval: mi})
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// mainIntervals are the main pass cycles searched (seconds; 0: the base
// profile's): event-driven, every minute, every 5 minutes.
var mainIntervals = []int64{0, 60, 300}

// apply returns base with candidate c's settings.
func apply(base sim.Profile, c Candidate, tjobs []trace.Job) (sim.Profile, error) {
	p := base
	cfg := &p.Config
	switch c.Priority {
	case "base":
	case "fcfs":
		cfg.Priority = sim.Priority{AgeWeight: 1000, MaxAgeSec: 86400, AgeUncapped: true}
	case "fairshare":
		cfg.Priority.AgeWeight, cfg.Priority.SizeWeight, cfg.Priority.FairShareWeight = 1000, 0, 10000
	case "size":
		cfg.Priority.AgeWeight, cfg.Priority.SizeWeight, cfg.Priority.FairShareWeight = 1000, 10000, 1000
	default:
		return p, fmt.Errorf("calibrate: priority %q", c.Priority)
	}
	if cfg.Priority.FairShareWeight > 0 && cfg.Priority.DecayHalfLifeSec == 0 {
		cfg.Priority.DecayHalfLifeSec = 2 * 86400
	}
	if cfg.Priority.AgeWeight > 0 && cfg.Priority.MaxAgeSec == 0 {
		cfg.Priority.MaxAgeSec = 7 * 86400
	}
	switch c.Backfill {
	case "conservative":
		cfg.Backfill.Flavour = sim.BackfillConservative
	case "easy":
		cfg.Backfill.Flavour = sim.BackfillEASY
	case "none":
		cfg.Backfill.Flavour = sim.BackfillNone
	}
	if cfg.Backfill.Flavour != sim.BackfillNone {
		d := sim.DefaultConfig().Backfill
		cfg.Backfill.IntervalSec = cmp.Or(cfg.Backfill.IntervalSec, d.IntervalSec)
		cfg.Backfill.WindowSec = cmp.Or(cfg.Backfill.WindowSec, d.WindowSec)
		cfg.Backfill.ResolutionSec = cmp.Or(cfg.Backfill.ResolutionSec, d.ResolutionSec)
	}
	cfg.Cancelled = sim.CancelLeave
	if c.Cancelled == "run-zero" {
		cfg.Cancelled = sim.CancelRunZero
	}
	p.InferCapacity, p.InferDependencies = nil, nil
	if c.InferCapacity {
		co := base.CapacityOptions(cfg.Nodes)
		co.Nodes = 0
		p.InferCapacity = &co
		cfg.Capacity = nil
	}
	if c.InferDependencies {
		p.InferDependencies = base.DependencyOptions()
	}
	if c.UserLimit > 0 {
		cfg.Limits.MaxJobsPerUser = c.UserLimit
	}
	if c.MainInterval > 0 {
		cfg.MainIntervalSec = c.MainInterval
	}
	c.Tune.apply(&p)
	p.Partitions = nil
	if c.Partitions {
		if len(base.Partitions) > 0 {
			p.Partitions = base.Partitions
		} else {
			p.Partitions = tracePartitions(tjobs)
		}
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("calibrate: %s: %w", c, err)
	}
	return p, nil
}

// userLimit returns the most jobs one user of the trace ran at once (from
// the recorded starts and ends), 0 when no job has both: a per-user limit
// the trace may have been scheduled under, were it lower than the
// queue's demand.
func userLimit(tjobs []trace.Job) int {
	type change struct {
		at    int64
		delta int
	}
	byUser := map[string][]change{}
	for i := range tjobs {
		j := &tjobs[i]
		if j.StartUnknown || j.Start.IsZero() || j.End.IsZero() || !j.End.After(j.Start) {
			continue
		}
		byUser[j.User] = append(byUser[j.User], change{j.Start.Unix(), 1}, change{j.End.Unix(), -1})
	}
	most := 0
	for _, ch := range byUser {
		slices.SortFunc(ch, func(a, b change) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
		n := 0
		for _, c := range ch {
			n += c.delta
			most = max(most, n)
		}
	}
	return most
}

// tracePartitions returns a partition per partition name of the trace's
// jobs (sorted; the jobs without one in the default partition), each
// sized from the trace.
func tracePartitions(tjobs []trace.Job) []sim.Partition {
	seen := map[string]bool{}
	for i := range tjobs {
		if p := tjobs[i].Partition; p != "" && p != sim.DefaultPartition {
			seen[p] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]sim.Partition, len(names))
	for i, n := range names {
		out[i] = sim.Partition{Name: n}
	}
	return out
}
