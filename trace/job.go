package trace

import (
	"strconv"
	"time"
)

// Unknown is the value of an integer field whose value the input did not
// give, where 0 would be a valid value (Priority, ReqMemMB, ArrayTaskID, ...).
const Unknown = -1

// NoID is the value of UID, GID and CancelledBy when they are unknown.
const NoID = -1

// NoLimit is the value of TimelimitSec for a job without a known limit
// (sacct's UNLIMITED or Partition_Limit).
const NoLimit = -1

// Job is one row of the canonical job table: a Slurm allocation, or one
// requeue attempt of it.
//
// The zero value is not a valid Job; use NewJob, which sets every "unknown"
// sentinel.
type Job struct {
	// JobID is the job ID as sacct prints it: "478729", "3_1" (array task),
	// "12+1" (het component), "7_[1-3]" (pending array tasks).
	JobID string
	// JobIDRaw is Slurm's numeric job ID (sacct JobIDRaw); for an array task
	// it is the task's own ID. 0 when unknown.
	JobIDRaw int64
	// ArrayJobID is the ID of the array the job is a task of; 0 when the job
	// is not an array task.
	ArrayJobID int64
	// ArrayTaskID is the task index within ArrayJobID; Unknown when the job
	// is not an array task or stands for a range of pending tasks.
	ArrayTaskID int64
	// HetJobID is the leader ID of a heterogeneous job; 0 when not het.
	HetJobID int64
	// HetOffset is the component index K of a het job N+K; Unknown when not het.
	HetOffset int64

	Cluster   string
	Partition string
	Account   string
	User      string
	// UID is the numeric user ID; NoID when unknown.
	UID   int64
	Group string
	// GID is the numeric group ID; NoID when unknown.
	GID     int64
	JobName string
	QOS     string

	// State is the job's final (or, for a running job, current) state.
	State State
	// CancelledBy is the UID that cancelled the job ("CANCELLED by 123");
	// NoID otherwise.
	CancelledBy int64
	// Reason is Slurm's last pending reason ("Dependency", "Priority", ...);
	// empty when unknown or "None".
	Reason string
	// ExitCode is the exit status of the batch script (the number before
	// the colon in sacct's ExitCode); ExitSignal the signal (after it).
	ExitCode   int32
	ExitSignal int32

	// Submit, Eligible, Start and End are UTC instants; the zero Time means
	// unknown (sacct's Unknown or None).
	Submit   time.Time
	Eligible time.Time
	Start    time.Time
	End      time.Time

	// StartUnknown marks a job that ran although the input did not record
	// when it started: an SWF line whose wait time is -1 (unknown) but whose
	// run time is known. Start and End are then zero and ElapsedSec holds
	// the run time. Such a job is not NeverStarted; it has no Wait, so it
	// is left out of wait statistics and of replay fidelity.
	StartUnknown bool
	// ElapsedSec is the run time in seconds of a StartUnknown job (>= 0);
	// Unknown for every other job, whose run time is End - Start (RunTime).
	ElapsedSec int64

	// TimelimitSec is the wall-time limit in seconds; NoLimit when UNLIMITED
	// or Partition_Limit.
	TimelimitSec int64
	// TimeMinSec is the job's minimum time limit in seconds (sbatch
	// --time-min: backfill may start it with any limit from it up to
	// TimelimitSec); 0 when it has none or the input does not say.
	TimeMinSec int64
	// NNodes, NCPUs and NGPUs count allocated (or, for jobs that never ran,
	// requested) nodes, CPUs and GPUs (gres/gpu).
	NNodes int32
	NCPUs  int32
	NGPUs  int32
	// ReqMemMB is the memory requested for the whole job in MiB (per-node
	// and per-CPU requests multiplied out); Unknown when not given.
	ReqMemMB int64
	// Priority is Slurm's integer priority as recorded; Unknown when not given.
	Priority int64
	// Attempt is the requeue index (0 for the first run); see sacct -D.
	Attempt int32
	// Steps counts the step rows (N.batch, N.extern, N.0, ...) that ingest
	// folded into this allocation.
	Steps int32
	// Repair names the repairs ingest applied to the input row,
	// comma-separated ("" when none), e.g. RepairShiftedFields or
	// ingest.RepairInvalidText ("invalid-text").
	Repair string

	// SourceFile and SourceLine locate the input row (1-indexed line).
	SourceFile string
	SourceLine int64
}

// RepairShiftedFields marks a Mirage-artifact row whose extra tokens after
// UID were dropped by anchoring the last seven fields.
const RepairShiftedFields = "shifted-fields"

// NewJob returns a Job with every optional field set to its "unknown"
// sentinel.
func NewJob() Job {
	return Job{
		ArrayTaskID:  Unknown,
		HetOffset:    Unknown,
		UID:          NoID,
		GID:          NoID,
		CancelledBy:  NoID,
		TimelimitSec: NoLimit,
		ReqMemMB:     Unknown,
		Priority:     Unknown,
		ElapsedSec:   Unknown,
	}
}

// Started reports whether the job ever started running: its Start is
// known, or it is StartUnknown.
func (j *Job) Started() bool { return !j.Start.IsZero() || j.StartUnknown }

// Wait returns Start - Submit, and false when either is unknown (as for a
// StartUnknown job).
func (j *Job) Wait() (time.Duration, bool) {
	if j.Start.IsZero() || j.Submit.IsZero() {
		return 0, false
	}
	return j.Start.Sub(j.Submit), true
}

// RunTime returns End - Start, or ElapsedSec for a StartUnknown job, and
// false when the job never started or has not ended.
func (j *Job) RunTime() (time.Duration, bool) {
	if j.StartUnknown {
		return time.Duration(j.ElapsedSec) * time.Second, j.ElapsedSec >= 0
	}
	if j.Start.IsZero() || j.End.IsZero() {
		return 0, false
	}
	return j.End.Sub(j.Start), true
}

// HitLimit reports whether the job ran for at least its time limit.
func (j *Job) HitLimit() bool {
	rt, ok := j.RunTime()
	return ok && j.TimelimitSec != NoLimit && rt >= time.Duration(j.TimelimitSec)*time.Second
}

// Position returns "file:line" for messages.
func (j *Job) Position() string {
	return j.SourceFile + ":" + strconv.FormatInt(j.SourceLine, 10)
}

// NeverStarted reports whether the job left the queue without running: its
// Start is unknown (sacct "None") and it is not StartUnknown, or it was
// cancelled (or its state is unknown, as in traces without a State column)
// with Start == End, which is how sacct records a job cancelled while
// pending.
func (j *Job) NeverStarted() bool {
	if j.StartUnknown {
		return false
	}
	if j.Start.IsZero() {
		return true
	}
	return (j.State == StateCancelled || j.State == StateUnknown) && j.Start.Equal(j.End)
}
