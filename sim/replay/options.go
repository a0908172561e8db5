package replay

import (
	"log/slog"
	"time"

	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// In is what a replay reads: the trace and the simulator profile.
type In struct {
	// Trace is the trace file (Parquet, from ingest).
	Trace string
	// Jobs, when not nil, are the trace's jobs already read (Trace then
	// only names them in messages).
	Jobs []trace.Job
	// Profile is the simulator profile, with its overrides applied: its
	// Config is simulated, and its InferDependencies and InferCapacity,
	// when set, turn the inferences on.
	Profile sim.Profile
}

// Options configure Run.
type Options struct {
	// From and To bound the submissions replayed, Unix seconds: [From,
	// To); 0 leaves a side open.
	From, To int64
	// Zone is the zone of the per-month figures; nil is UTC.
	Zone *time.Location
	// AllowSkip replays a trace whose jobs wider than the partition are
	// more than sim.MaxSkipShare of its jobs or node-hours; otherwise Run
	// refuses it with an error wrapping sim.ErrUnfit (sim.Fit.Check).
	AllowSkip bool
	// PartitionFlag names the setting that sizes the partition in the
	// fit's messages; empty is "--partition-nodes".
	PartitionFlag string
	// Progress, when not nil, is called during the replay, at most about
	// once a second, with the simulated time (Unix seconds), the jobs
	// started so far and the jobs replayed.
	Progress func(at int64, started, total int)
	// Logger gets the fit's warnings; nil discards them.
	Logger *slog.Logger
}

// logger returns l, or a logger that discards when l is nil.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// partitionFlag returns flag, or "--partition-nodes" when it is empty.
func partitionFlag(flag string) string {
	if flag == "" {
		return "--partition-nodes"
	}
	return flag
}
