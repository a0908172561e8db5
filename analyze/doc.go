// Package analyze turns a trace (trace/, mirage ingest's Parquet) into the
// analytics an HPC center acts on, including the service chains its users
// really run and what their interruptions cost.
//
// Analyze reads the trace once, streaming in file (Submit) order, and
// feeds every job to small accumulators:
//
//   - volume: jobs, users, accounts, node- and GPU-hours by month (in the
//     cluster's zone) and partition; job-size and time-limit distributions;
//   - timeline: per-minute difference arrays of busy nodes and of pending
//     jobs, nodes and requested node-seconds, each job O(1), summed into
//     hourly utilisation (against the given or the inferred capacity) and
//     queue depth, and hour-of-day and day-of-week profiles;
//   - waits: histograms (exact below an hour, 0.5 % bins above) of Start -
//     Submit by node-count class, limit class, partition, QOS and month;
//   - run time vs limit: each user's histogram of run time / limit, merged
//     per user class (jobs per user);
//   - chains: the service-chain detector (see README.md for its rules and
//     thresholds, ChainOptions), which keeps only predecessor candidates
//     that may still be continued.
//
// Memory therefore follows the trace's span, its users, months and
// partitions and the jobs running at once, not its length. When the trace
// has at most ReplayOptions.MaxJobs rows, Analyze reads it again whole and
// replays it in the simulator (sim/): the fidelity of simulated waits by
// month, and the reactive and oracle outcomes on the detected chains. A
// section whose columns the trace lacks, or that a bound turns off, says
// why in Section.Absent.
//
// Run writes the tables (Parquet, one per file, columns in README.md),
// summary.json, figures (PNG and SVG, gonum/plot, sans-serif, Okabe–Ito
// colours) and the self-contained analysis.html (internal/htmlpage's
// chrome). Outputs are deterministic: no clock, no randomness, no map
// order in any table.
//
// Units: times in tables are UTC instants (Parquet TIMESTAMP(MILLIS)) or
// Unix milliseconds in JSON (fields ending in _ms); durations carry their
// unit in the name (_sec, _hours); r is the successor's start minus the
// predecessor's end, in seconds (> 0 interruption, < 0 overlap).
package analyze
