// Package trace defines Mirage's canonical job table: one Job per Slurm job
// allocation (or requeue attempt), the typed State enum, and the Parquet
// format every later stage reads.
//
// The package is the bottom layer of Mirage: it imports only the standard
// library and parquet-go. Readers of raw scheduler output live in package
// ingest; they produce Jobs and hand them to a Writer.
//
// # Layout of a trace file
//
// A trace file is a Parquet file (zstd, row groups of at most
// DefaultRowGroupRows rows) whose rows are sorted by Submit, then Cluster,
// JobID and Attempt. Its key-value metadata holds the schema version under
// MetaSchemaVersion; Open refuses a file written with a newer schema version
// (ErrSchemaVersion). The columns are documented in docs/format.md.
//
// # Glossary
//
// These are Slurm's own words, as sacct prints them.
//
//	Allocation   a job proper: the resources granted to one job ID. sacct also
//	             prints steps (N.batch, N.extern, N.0, ...) that run inside
//	             it; ingest folds those into their allocation.
//	Array task   one element N_T of a job array N; ArrayJobID = N,
//	             ArrayTaskID = T. Each task has its own raw job ID.
//	Het job      a heterogeneous job N+K; HetJobID = N, HetOffset = K.
//	Attempt      requeue index: with sacct -D a requeued job appears once per
//	             attempt; the first is attempt 0.
//	Submit       when the job entered the queue (for attempt > 0, when it was
//	             requeued).
//	Eligible     when the job became eligible to start (dependencies met,
//	             begin time reached, hold released).
//	Start, End   when the job started and ended. A job cancelled while
//	             pending has no Start ("None") and End = cancellation time.
//	StartUnknown a job that ran although the input did not record when it
//	             started (an SWF wait time of -1): its run time is in
//	             ElapsedSec, it has no Start or End, no wait, and it is not
//	             "never started". (Mirage's word, not Slurm's.)
//	Timelimit    the wall-time limit requested; UNLIMITED or Partition_Limit
//	             when none is known (TimelimitSec = NoLimit).
//	UID, GID     numeric user and group IDs; NoID when unknown.
//
// All instants are UTC. A zero time.Time means "unknown" (sacct's Unknown or
// None). Integer fields that may be unknown use the sentinels NoID, NoLimit
// and Unknown (-1), documented on each field.
package trace
