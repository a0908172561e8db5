// Package features turns simulated queue states into labelled training
// samples for the service-chain provisioning problem (the Mirage
// artifact's "offline data generation").
//
// A service chain is two jobs of the same shape: P, the predecessor, and
// Q, its successor. For each window Build starts a simulation (sim.NewWindow,
// cold or warm), submits P after a warm-up, and at each probe time t
// computes a feature vector from what a live provisioner could know at t —
// the queue snapshot, a 24-hour history of snapshots every 10 minutes, the
// waits of recently started jobs and P's own state — then forks the
// simulation (sim.Sim.Clone), submits Q at t in the fork, runs the fork
// until Q starts and records the label
//
//	r = Q.start - P.end   (seconds; r > 0 an interruption, r < 0 an overlap)
//
// and Q's wait. A decision time t means "just before t's events": the main
// timeline has processed everything strictly before t (sim.Sim.RunBefore),
// so the features describe the queue a provisioner sees as it decides at t,
// and Q submitted at t is queued in the same step as t's arrivals and ends
// and gets t's main and backfill passes (P likewise at its submission).
// History samples are taken after everything at their grid time. The
// features are computed on the main timeline, in which Q
// never exists, so they cannot leak the label; TestBuild_NoLeakage checks it.
//
// Schema returns the ordered feature names with their units;
// FeatureSchemaVersion changes whenever names, order or meaning change.
// Samples are column-major (one slice per feature) and WriteParquet stores
// them with the schema, the simulator configuration and the trace digest in
// the file's key-value metadata. Units follow the names: _sec is seconds,
// _nodes nodes, _node_sec node-seconds, _jobs a count. Times are Unix
// seconds.
//
// Run is the stage as one call, which mirage features build and the
// pipeline's features stages make: it reads the trace, checks its fit,
// prepares it under a Protocol, adds the run-time column of an injected
// RunTimeModel, runs Build and writes the Parquet file. RunShard and
// MergeShards split it over contiguous runs of the windows and merge the
// shards into Run's file.
//
// Glossary: see README.md.
package features
