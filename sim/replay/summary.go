package replay

import "github.com/mirage-hpc/mirage/sim"

// Summary is what Run found: the JSON of `mirage sim replay`.
type Summary struct {
	Jobs   int   `json:"jobs"`
	Nodes  int   `json:"nodes"`
	Events int64 `json:"events"`
	// WallSec is the replay's wall time in seconds and EventsPerSec its
	// speed: the only figures that differ between two runs.
	WallSec      float64 `json:"wall_sec"`
	EventsPerSec float64 `json:"events_per_sec"`
	// The fidelity figures of the Compared jobs; absent (nil) when no job
	// had a real wait to compare (NotCompared says why).
	WaitMAESec          *float64 `json:"wait_mae_sec,omitempty"`
	WaitMedianAbsErrSec *float64 `json:"wait_median_abs_err_sec,omitempty"`
	WaitSpearman        *float64 `json:"wait_spearman,omitempty"`
	Within2x            *float64 `json:"within_2x,omitempty"`
	Compared            int      `json:"compared"`
	// NotCompared, when Compared is 0, says why no job had a real wait to
	// compare.
	NotCompared string `json:"not_compared,omitempty"`
	// Fit is how the trace fits the partition (wide jobs, demand), and
	// Warnings what the replay's figures cannot be trusted for.
	Fit                  sim.Fit             `json:"fit"`
	Warnings             []string            `json:"warnings,omitempty"`
	PerMonth             []sim.MonthFidelity `json:"per_month"`
	InferredDependencies *sim.Inference      `json:"inferred_dependencies,omitempty"`
	Conversion           sim.Conversion      `json:"conversion"`
	Config               sim.Config          `json:"config"`
	// CapacitySteps is the number of inferred capacity steps (with
	// capacity inference; they are listed in Config.Capacity).
	CapacitySteps int `json:"capacity_steps"`
	// ZeroWaitSim counts the replayed jobs that started in the simulation
	// less than a minute after their trace submission (or before it, by
	// minute rounding); ZeroWaitReal the jobs that ran in the trace less
	// than a minute after submission. WaitedOverHourSim and
	// WaitedOverHourReal count waits over an hour likewise.
	ZeroWaitSim        int `json:"zero_wait_sim"`
	ZeroWaitReal       int `json:"zero_wait_real"`
	WaitedOverHourSim  int `json:"waited_over_hour_sim"`
	WaitedOverHourReal int `json:"waited_over_hour_real"`
	// Work is what the scheduling passes did (their count and the jobs
	// they looked at) and the deepest queue.
	Work sim.Work `json:"work"`
	// Partitions are each partition's replay, for a profile with
	// partitions (Run); the figures above are then over all of them.
	Partitions []PartitionSummary `json:"partitions,omitempty"`
}
