package advise

import "fmt"

// JobState is a live job's place in the queue, as far as advice cares.
type JobState uint8

const (
	// JobPending is a job waiting in the queue, eligible to start.
	JobPending JobState = iota
	// JobHeld is a pending job that may not start yet: held by a user or
	// an administrator, waiting on a dependency or a begin time. The
	// simulator's snapshot leaves such jobs out (sim.Snapshot).
	JobHeld
	// JobRunning is a running job (Slurm RUNNING, COMPLETING,
	// CONFIGURING, SUSPENDED).
	JobRunning
	// JobEnded is a job that has left the queue (completed, failed,
	// cancelled, timed out, ...).
	JobEnded
)

// String returns "pending", "held", "running" or "ended".
func (s JobState) String() string {
	switch s {
	case JobHeld:
		return "held"
	case JobRunning:
		return "running"
	case JobEnded:
		return "ended"
	}
	return "pending"
}

// Job is one job of a live cluster, from squeue or sacct. Times are Unix
// seconds, 0 when unknown; durations are seconds.
type Job struct {
	// ID is Slurm's job ID as squeue prints it ("123", "45_7" for an
	// array task); Raw is its numeric JobIDRaw when known, else 0.
	ID  string `json:"id"`
	Raw int64  `json:"raw,omitempty"`
	// Name is the job name, any text (spaces, quotes, '|').
	Name      string   `json:"name"`
	User      string   `json:"user"`
	Partition string   `json:"partition"`
	State     JobState `json:"state"`
	// Reason is squeue's pending reason ("Priority", "Dependency", ...).
	Reason string `json:"reason,omitempty"`
	// Nodes is the number of nodes allocated, or requested while pending.
	Nodes int32 `json:"nodes"`
	// LimitSec is the time limit (Slurm's minutes × 60); 0 when unlimited.
	LimitSec int64 `json:"limit_sec"`
	Submit   int64 `json:"submit"`
	// Eligible is when the job became (or becomes) eligible to start;
	// Submit when the source does not say.
	Eligible int64 `json:"eligible"`
	// Start is the start of a running or ended job (0 while pending or
	// for a job that never ran); End is the end of an ended one.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// Priority is Slurm's priority value (recorded, not used: the
	// simulator's multifactor formula orders the queue, as in training).
	Priority int64 `json:"priority,omitempty"`
	// Account, QOS, CPUs and GPUs are what a run-time model reads of a
	// job besides the fields above (train/jobruntime: target-encoded
	// account and QOS, CPU and GPU counts). Only ParseSacct sets them (as
	// ingest reads them into the trace a run-time model is trained on);
	// BuildState gives a queued job its sacct record's. Empty or 0 when
	// unknown.
	Account string `json:"account,omitempty"`
	QOS     string `json:"qos,omitempty"`
	CPUs    int32  `json:"cpus,omitempty"`
	GPUs    int32  `json:"gpus,omitempty"`
}

// MarshalText implements encoding.TextMarshaler (String's words).
func (s JobState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *JobState) UnmarshalText(b []byte) error {
	for _, c := range []JobState{JobPending, JobHeld, JobRunning, JobEnded} {
		if string(b) == c.String() {
			*s = c
			return nil
		}
	}
	return fmt.Errorf("job state %q: want pending, held, running or ended", b)
}
