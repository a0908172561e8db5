package sim

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// CancelPolicy says what a job that never ran in the trace (Job.Cancel > 0)
// does in the simulation.
type CancelPolicy uint8

const (
	// CancelLeave keeps the job in the queue, never starting or blocking
	// anything, until its Cancel time, then drops it (the default).
	CancelLeave CancelPolicy = iota
	// CancelRunZero treats it as a job of zero run time that waits for
	// nodes like any other (the Mirage artifact's behaviour).
	CancelRunZero
)

// String returns "leave" or "run-zero".
func (c CancelPolicy) String() string {
	if c == CancelRunZero {
		return "run-zero"
	}
	return "leave"
}

// ParseCancelPolicy parses "leave" or "run-zero".
func ParseCancelPolicy(s string) (CancelPolicy, error) {
	switch s {
	case "leave", "":
		return CancelLeave, nil
	case "run-zero":
		return CancelRunZero, nil
	}
	return 0, fmt.Errorf("cancelled policy %q: want leave or run-zero", s)
}

// MarshalYAML writes the policy as its name (String); JSON keeps the
// number.
func (c CancelPolicy) MarshalYAML() (any, error) { return c.String(), nil }

// UnmarshalYAML reads a policy's name (ParseCancelPolicy).
func (c *CancelPolicy) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseCancelPolicy(n.Value)
	if n.Kind != yaml.ScalarNode {
		err = errors.New("cancelled policy: want leave or run-zero")
	}
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*c = v
	return nil
}

// Flavour is a backfill flavour.
type Flavour uint8

const (
	// BackfillConservative gives every tested job a reservation (Slurm's
	// backfill plugin within its window; the artifact's behaviour).
	BackfillConservative Flavour = iota
	// BackfillEASY protects only the top job: the first job that cannot
	// start now gets a reservation; the others start now only if they do
	// not delay it.
	BackfillEASY
	// BackfillNone disables the backfill pass (main scheduler only).
	BackfillNone
)

// String returns "conservative", "easy" or "none".
func (f Flavour) String() string {
	switch f {
	case BackfillEASY:
		return "easy"
	case BackfillNone:
		return "none"
	}
	return "conservative"
}

// ParseFlavour parses "conservative", "easy" or "none".
func ParseFlavour(s string) (Flavour, error) {
	switch s {
	case "conservative", "":
		return BackfillConservative, nil
	case "easy":
		return BackfillEASY, nil
	case "none":
		return BackfillNone, nil
	}
	return 0, fmt.Errorf("backfill flavour %q: want conservative, easy or none", s)
}

// MarshalYAML writes the flavour as its name (String); JSON keeps the
// number.
func (f Flavour) MarshalYAML() (any, error) { return f.String(), nil }

// UnmarshalYAML reads a flavour's name (ParseFlavour).
func (f *Flavour) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseFlavour(n.Value)
	if n.Kind != yaml.ScalarNode {
		err = errors.New("backfill flavour: want conservative, easy or none")
	}
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*f = v
	return nil
}

// Priority holds the multifactor priority weights (Slurm's
// PriorityWeight*). A pending job's priority is
//
//	AgeWeight * age + SizeWeight * nodes/N + FairShareWeight * fairshare
//
// where age = (now - eligible) / MaxAgeSec, capped at 1 unless AgeUncapped,
// and fairshare = 2^(-usage/share) with usage the user's share of all
// decayed node-seconds and share = 1/users (Slurm's classic formula with
// equal shares).
type Priority struct {
	AgeWeight       float64 `json:"age_weight" yaml:"age_weight"`
	SizeWeight      float64 `json:"size_weight" yaml:"size_weight"`
	FairShareWeight float64 `json:"fairshare_weight" yaml:"fairshare_weight"`
	// MaxAgeSec is PriorityMaxAge in seconds.
	MaxAgeSec int64 `json:"max_age_sec" yaml:"max_age_sec"`
	// AgeUncapped lets age grow past 1 (the artifact's behaviour).
	AgeUncapped bool `json:"age_uncapped" yaml:"age_uncapped"`
	// DecayHalfLifeSec is PriorityDecayHalfLife in seconds (fair-share
	// usage decay).
	DecayHalfLifeSec int64 `json:"decay_half_life_sec" yaml:"decay_half_life_sec"`
	// FairShareSeenUsers makes users in the fair-share formula the users
	// that have submitted a job so far (what the cluster knows now)
	// instead of every user of the simulation, future submitters
	// included. Off by default.
	FairShareSeenUsers bool `json:"fairshare_seen_users,omitempty" yaml:"fairshare_seen_users,omitempty"`
	// FairShareUsers, when > 0, is users in the fair-share formula: the
	// number of users (associations) sharing the cluster, a fact of the
	// site (sacctmgr knows it) rather than of the jobs simulated. It
	// takes precedence over FairShareSeenUsers.
	FairShareUsers int `json:"fairshare_users,omitempty" yaml:"fairshare_users,omitempty"`
}

// Backfill configures the backfill pass (Slurm's bf_* parameters).
type Backfill struct {
	Flavour Flavour `json:"flavour" yaml:"flavour"`
	// IntervalSec is bf_interval: a pass runs at every multiple of it
	// while jobs are pending.
	IntervalSec int64 `json:"interval_sec" yaml:"interval_sec"`
	// WindowSec is bf_window: no job is planned to start later than
	// now + WindowSec.
	WindowSec int64 `json:"window_sec" yaml:"window_sec"`
	// ResolutionSec is bf_resolution: planned times are rounded up to
	// multiples of it from now.
	ResolutionSec int64 `json:"resolution_sec" yaml:"resolution_sec"`
	// MaxJobTest is bf_max_job_test: at most this many pending jobs are
	// tested per pass; 0 means all.
	MaxJobTest int `json:"max_job_test" yaml:"max_job_test"`
	// MaxJobUser is bf_max_job_user: at most this many jobs of one user
	// are tested per pass (the user's others are passed over, not
	// counted in MaxJobTest); 0 means no limit.
	MaxJobUser int `json:"max_job_user,omitempty" yaml:"max_job_user"`
}

// Limits are per-user limits (Slurm QOS MaxJobsPU, MaxTRESPU=node=N);
// 0 means unlimited. A job over a limit is skipped, not blocking others.
type Limits struct {
	MaxJobsPerUser  int `json:"max_jobs_per_user" yaml:"max_jobs_per_user"`
	MaxNodesPerUser int `json:"max_nodes_per_user" yaml:"max_nodes_per_user"`
}

// CapacityStep sets the number of usable nodes from At (Unix seconds) on:
// nodes down or reserved for maintenance. Running jobs are never killed;
// no job starts while busy nodes exceed the capacity.
type CapacityStep struct {
	At    int64 `json:"at" yaml:"at"`
	Nodes int   `json:"nodes" yaml:"nodes"`
	// Unannounced marks a step the scheduler cannot know in advance (a
	// failure, or capacity inferred from a trace, as InferCapacity's
	// steps are): it applies at At like any other, but the backfill
	// planner (and so EstimatedStart) does not plan with it before At.
	// Steps given by hand (a maintenance reservation) are announced.
	Unannounced bool `json:"unannounced,omitempty" yaml:"unannounced,omitempty"`
}

// Config configures a simulation.
type Config struct {
	// Nodes is the partition size N.
	Nodes     int          `json:"nodes" yaml:"nodes"`
	Cancelled CancelPolicy `json:"cancelled" yaml:"cancelled"`
	Priority  Priority     `json:"priority" yaml:"priority"`
	Backfill  Backfill     `json:"backfill" yaml:"backfill"`
	Limits    Limits       `json:"limits" yaml:"limits"`
	// Capacity, sorted by At, changes the usable nodes over time.
	Capacity []CapacityStep `json:"capacity,omitempty" yaml:"capacity,omitempty"`
	// MinuteRounding truncates submissions to the minute and rounds limits
	// and run times up to whole minutes (at least one), as the artifact's
	// one-minute tick does.
	MinuteRounding bool `json:"minute_rounding" yaml:"minute_rounding"`
	// AgeFromSubmit measures age from submission instead of eligibility.
	AgeFromSubmit bool `json:"age_from_submit" yaml:"age_from_submit"`
	// MainIntervalSec, when > 0, runs the main scheduling pass only at
	// multiples of it (a scheduler that cycles, as Maui's and the EASY
	// era's did, or Slurm's sched_interval alone) instead of after every
	// event: a job that could start waits for the next cycle. 0 is the
	// event-driven main pass.
	MainIntervalSec int64 `json:"main_interval_sec,omitempty" yaml:"main_interval_sec,omitempty"`
	// SyncPoints, when set, are wall-clock times no job may run across
	// (see SyncPoints); nil is none.
	SyncPoints *SyncPoints `json:"sync_points,omitempty" yaml:"sync_points,omitempty"`
	// HeldInSnapshot lists held jobs (submitted, waiting on a predecessor
	// or a begin time) at the end of Snapshot.Pending, marked Held, as
	// squeue lists them (PENDING, reason Dependency or BeginTime), so
	// queue features see them; off, Snapshot leaves them out.
	HeldInSnapshot bool `json:"held_in_snapshot,omitempty" yaml:"held_in_snapshot,omitempty"`
}

// DefaultConfig returns the default profile's configuration
// (profiles/default.yaml, mirage sim profile show default): Slurm-like
// defaults after the artifact's slurm.conf: 88 nodes, age 7000 capped at
// 7 days, size 100, fair-share 4000 with a 2-day half-life, conservative
// backfill every 10 minutes with a 48-hour window, 600-second resolution
// and 3000 jobs tested.
func DefaultConfig() Config { return mustBuiltinProfile("default").Config }

// MirageCompat returns the mirage-compat profile's configuration
// (profiles/mirage-compat.yaml): the Mirage artifact's simulator as
// described in its specification: no age cap, age from submission, no
// fair-share, minute rounding, jobs cancelled while pending run for zero
// time.
func MirageCompat() Config { return mustBuiltinProfile("mirage-compat").Config }

// ErrConfig is wrapped by Validate's errors.
var ErrConfig = errors.New("invalid simulator configuration")

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Nodes <= 0:
		return fmt.Errorf("%w: nodes %d <= 0", ErrConfig, c.Nodes)
	case c.Priority.MaxAgeSec <= 0 && c.Priority.AgeWeight != 0:
		return fmt.Errorf("%w: max age %d s <= 0", ErrConfig, c.Priority.MaxAgeSec)
	case c.Priority.DecayHalfLifeSec <= 0 && c.Priority.FairShareWeight != 0:
		return fmt.Errorf("%w: decay half-life %d s <= 0", ErrConfig, c.Priority.DecayHalfLifeSec)
	case c.Backfill.Flavour != BackfillNone && (c.Backfill.IntervalSec <= 0 || c.Backfill.ResolutionSec <= 0 || c.Backfill.WindowSec <= 0):
		return fmt.Errorf("%w: backfill interval, window and resolution must be > 0", ErrConfig)
	case c.Priority.FairShareUsers < 0:
		return fmt.Errorf("%w: fair-share users %d < 0", ErrConfig, c.Priority.FairShareUsers)
	case c.MainIntervalSec < 0:
		return fmt.Errorf("%w: main interval %d s < 0 (0 = after every event)", ErrConfig, c.MainIntervalSec)
	case c.Backfill.MaxJobTest < 0 || c.Backfill.MaxJobUser < 0:
		return fmt.Errorf("%w: max job test %d or max job user %d < 0 (0 = unlimited)", ErrConfig, c.Backfill.MaxJobTest, c.Backfill.MaxJobUser)
	case c.Limits.MaxJobsPerUser < 0 || c.Limits.MaxNodesPerUser < 0:
		return fmt.Errorf("%w: negative per-user limit", ErrConfig)
	}
	if c.SyncPoints != nil {
		if err := c.SyncPoints.Validate(); err != nil {
			return fmt.Errorf("%w: sync points: %w", ErrConfig, err)
		}
	}
	for i, st := range c.Capacity {
		if st.Nodes < 0 || st.Nodes > c.Nodes || i > 0 && st.At < c.Capacity[i-1].At {
			return fmt.Errorf("%w: capacity step %d (%d nodes at %d) must be sorted and within 0..%d", ErrConfig, i, st.Nodes, st.At, c.Nodes)
		}
	}
	return nil
}
