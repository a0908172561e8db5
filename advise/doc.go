// Package advise runs a trained provisioning policy on a live Slurm
// cluster: it reads the queue (squeue --json, or a fixed squeue --format
// where --json is missing), the last day of history (sacct --parsable2,
// through ingest's reader) and the partition's nodes (sinfo), rebuilds
// the simulator's view of that queue (sim.FromQueue) and its 24-hour
// history, computes the model's features with the very function the
// training samples came from (features.Vector) and decides whether to
// submit the successor Q of a running job P now.
//
// The API is a Source (SlurmSource, or StaticSource and any fake in
// tests), a Model (Open loads forest, xgboost, estimate and DQN
// artifacts, checking their digest and feature schema, and the run-time
// model of a model trained with the features.ModelEstimateName column,
// checking its digest: LiveOptions.RuntimeModel) and an Advisor:
//
//	m, _ := advise.Open("models/xgb")
//	d, err := advise.New(m, &advise.SlurmSource{Runner: advise.ExecRunner{}}).Decide(ctx, "123456")
//
// Decide returns a Decision (submit or wait, the score against the
// operating point's threshold, when to ask again) and writes it as one
// JSON line to Advisor.Audit. Watch repeats it at every decision time;
// Submit runs sbatch through a Runner with argv, never a shell, so job
// names with spaces, quotes or '|' are safe. Units: times are Unix
// seconds, durations seconds unless a name says hours (_h).
//
// Parity: TestParity_SimulatorAndLive renders simulated states as
// squeue --json and sacct --parsable2 text, reads them back and gets every
// feature bit for bit (TestParity_RuntimeModel: with a run-time model's
// column too); README.md lists what a live queue cannot show the
// simulator (fair-share usage before the history, jobs that will be
// cancelled, arrivals and ends at the decision's own second).
package advise
