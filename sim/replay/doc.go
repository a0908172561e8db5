// Package replay is the replay stage: it replays a whole trace in the
// simulator at the jobs' real submissions with their real run times, and
// judges the simulator against the trace. Run compares the simulated
// waits with the real ones (the fidelity of `mirage sim replay`); Starts
// scores start-time predictions made at each submission (the scheduler's
// estimate from limits, run times predicted from history or a run-time
// model, the Monte Carlo forecast) against the real starts (`mirage sim
// starts`).
//
// Both take a resolved simulator profile (sim.ProfileOverrides.Apply
// gives one): its configuration, and its dependency and capacity
// inference. Times are Unix seconds.
package replay
