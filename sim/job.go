package sim

// JobID identifies a job inside one simulation: a dense index into the
// job table given to New, then jobs added by Submit. Clones share IDs.
type JobID int32

// NoJob is the JobID of "no job" (Job.After without a dependency).
const NoJob JobID = -1

// Job is the simulator's compact view of a trace job. Times are Unix
// seconds; durations are seconds.
type Job struct {
	// Name is the trace's JobID, for messages and reports.
	Name string
	// User is a dense user index (FromTrace assigns them), -1 when unknown.
	User int32
	// Nodes is the number of whole nodes the job needs (>= 1).
	Nodes int32
	// Submit is when the job enters the queue.
	Submit int64
	// Eligible is the earliest time the job may start (a begin time or an
	// inferred dependency); 0 or anything <= Submit means at submission.
	Eligible int64
	// After, when not NoJob, holds the job until that job has ended in the
	// simulation (an explicit or inferred dependency).
	After JobID
	// LimitSec is the requested wall-time limit (sbatch --time); backfill
	// reservations plan with it unless TimeMinSec is set. It must be > 0.
	LimitSec int64
	// TimeMinSec is the job's minimum time limit (sbatch --time-min), 0
	// when it has none; one at or above LimitSec is none. Backfill plans
	// such a job with it, and when it starts the job the limit is raised
	// as high as delays no reservation (at least TimeMinSec, at most
	// LimitSec: Sim.Limit); the main pass starts it with LimitSec. A job
	// whose RunSec exceeds the limit it was granted is killed at it.
	TimeMinSec int64
	// RunSec is the actual run time, min(End-Start, limit) in the trace;
	// completions use it. Ignored when Cancel is set and the cancelled
	// policy is CancelLeave.
	RunSec int64
	// PredRunSec is a run time predicted at submission (PredictRunTimes),
	// 0 when none: only EstimatedStartPredicted plans with it; scheduling
	// never does.
	PredRunSec int64
	// Cancel, when > 0, is when a job that never ran in the trace left the
	// queue (sacct's End of a job cancelled while pending).
	Cancel int64
	// TraceStart is the job's real start in the trace (0 when it never
	// started or is not from a trace); used by warm windows and fidelity
	// replay, never by scheduling.
	TraceStart int64
}
