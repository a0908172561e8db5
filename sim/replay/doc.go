// Package replay is the replay stage: it replays a whole trace in the
// simulator at the jobs' real submissions with their real run times, and
// judges the simulator against the trace. Run compares the simulated
// waits with the real ones (the fidelity of `mirage sim replay`); Starts
// scores start-time predictions made at each submission (the scheduler's
// estimate from limits, run times predicted from history or a run-time
// model, the Monte Carlo forecast) against the real starts (`mirage sim
// starts`); Calibrate fits what a trace does not record (priority,
// backfill, cancelled jobs, inferences, partitions, a per-user limit, the
// main pass's cycle) to its real waits on some months by successive
// halving over month replays, scored on the later rungs also by how close
// the replay of the trace's own chains (analyze.DetectChains, once) comes
// to what they really lost, then perturbs the best setting's continuous
// settings (weights, age cap, half-life, backfill window and test limit,
// capacity inference) by coordinate search, and checks the result on the
// months after (`mirage sim calibrate`, a study's cluster.calibrate). A profile with
// partitions replays each on its own pool.
//
// All take a resolved simulator profile (sim.ProfileOverrides.Apply
// gives one): its configuration, and its dependency and capacity
// inference. Times are Unix seconds.
package replay
