package sim

// LS6 returns the configuration chosen by replaying the LS6 A100 trace
// (../shared/traces/ls6-a100.log; sim/FIDELITY.md has the sweep, the
// ablation and the commands): DefaultConfig's priority and backfill
// parameters with 80 nodes (the most the trace ever has busy at once),
// conservative backfill, jobs cancelled while pending leaving at their
// cancel time, and no per-user limits.
//
// It is meant for the ls6 protocol: FromTrace with Infer (dependencies)
// and Config.Capacity = InferCapacity(jobs, LS6Capacity()), as
// `mirage sim replay --profile ls6` does. Dependencies and capacity are
// properties of the trace, not of the configuration, so they are not
// part of the returned Config. Replaying all of LS6 that way, with the
// causal capacity (nothing from the trace's future), the 21,449 jobs that
// ran in the trace get simulated waits with a mean absolute error of
// 3.30 h (median 0.04 h), a Spearman correlation of 0.645 with the real
// waits, and 34.4% of the real waits over a minute within a factor of 2
// (the look-ahead capacity, each day's own peak from midnight on, planned
// in advance, gave 3.02 h, 0.666, 35.5%; 88 nodes with nothing modelled:
// 4.30 h, 0.354, 4.8%); TestLS6_Fidelity guards these figures.
//
// Per-user limits (Slurm MaxJobsPU, MaxTRESPU) did not improve the
// figures once capacity was inferred and are left off; EASY backfill
// scored 0.03 lower in Spearman and 3 points lower within 2x.
func LS6() Config {
	c := DefaultConfig()
	c.Nodes = 80
	c.Backfill.Flavour = BackfillConservative
	c.Cancelled = CancelLeave
	c.Limits = Limits{}
	return c
}

// LS6Capacity returns the capacity inference of the ls6 protocol, causal
// (CapacityOptions.Causal) so that nothing seen at a time comes from the
// trace's future: per day (UTC), the previous day's most nodes busy at
// once, raised during the day to the most busy so far, capped at LS6's 80
// nodes, without smoothing, headroom or a pending-demand condition.
func LS6Capacity() CapacityOptions {
	return CapacityOptions{Nodes: LS6().Nodes, BucketSec: DefaultCapacityBucketSec, Causal: true}
}
