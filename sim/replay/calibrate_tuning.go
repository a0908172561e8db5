package replay

import (
	"fmt"
	"strings"

	"github.com/mirage-hpc/mirage/sim"
)

// Tuning is the continuous part of a candidate: settings the grid leaves
// at the base profile's and the coordinate search (tune) perturbs. The
// zero value changes nothing; -1 in a field whose 0 means "keep" stands
// for the simulator's 0 (none, all).
type Tuning struct {
	// Reweighted replaces the multifactor priority's weights with
	// AgeWeight, FairShareWeight and SizeWeight (written even at 0).
	Reweighted      bool    `json:"reweighted,omitempty"`
	AgeWeight       float64 `json:"age_weight"`
	FairShareWeight float64 `json:"fairshare_weight"`
	SizeWeight      float64 `json:"size_weight"`
	// MaxAgeSec is the age cap (PriorityMaxAge), HalfLifeSec the
	// fair-share decay half-life, seconds.
	MaxAgeSec   int64 `json:"max_age_sec,omitempty"`
	HalfLifeSec int64 `json:"decay_half_life_sec,omitempty"`
	// BackfillWindowSec is bf_window (seconds), BackfillMaxJobTest
	// bf_max_job_test (-1: all).
	BackfillWindowSec  int64 `json:"bf_window_sec,omitempty"`
	BackfillMaxJobTest int   `json:"bf_max_job_test,omitempty"`
	// The capacity inference's bucket (seconds), smoothing (buckets; -1:
	// none) and pending threshold (seconds; -1: none), when it is on.
	CapacityBucketSec     int64 `json:"capacity_bucket_sec,omitempty"`
	CapacitySmooth        int   `json:"capacity_smooth,omitempty"`
	CapacityMinPendingSec int64 `json:"capacity_min_pending_sec,omitempty"`
}

// orNone maps the tuning's -1 ("none") to the simulator's 0.
func orNone[T int | int64](v T) T { return max(v, 0) }

// apply sets t's settings on p (after the grid's).
func (t Tuning) apply(p *sim.Profile) {
	pr := &p.Config.Priority
	if t.Reweighted {
		pr.AgeWeight, pr.FairShareWeight, pr.SizeWeight = t.AgeWeight, t.FairShareWeight, t.SizeWeight
		if pr.AgeWeight > 0 && pr.MaxAgeSec == 0 {
			pr.MaxAgeSec = 7 * 86400
		}
		if pr.FairShareWeight > 0 && pr.DecayHalfLifeSec == 0 {
			pr.DecayHalfLifeSec = 2 * 86400
		}
	}
	if t.MaxAgeSec > 0 {
		pr.MaxAgeSec = t.MaxAgeSec
	}
	if t.HalfLifeSec > 0 {
		pr.DecayHalfLifeSec = t.HalfLifeSec
	}
	bf := &p.Config.Backfill
	if t.BackfillWindowSec > 0 {
		bf.WindowSec = t.BackfillWindowSec
	}
	if t.BackfillMaxJobTest != 0 {
		bf.MaxJobTest = orNone(t.BackfillMaxJobTest)
	}
	if c := p.InferCapacity; c != nil {
		if t.CapacityBucketSec > 0 {
			c.BucketSec = t.CapacityBucketSec
		}
		if t.CapacitySmooth != 0 {
			c.Smooth = orNone(t.CapacitySmooth)
		}
		if t.CapacityMinPendingSec != 0 {
			c.MinPendingSec = orNone(t.CapacityMinPendingSec)
		}
	}
}

// String lists the tuning's settings (empty for the zero value).
func (t Tuning) String() string {
	var b strings.Builder
	if t.Reweighted {
		fmt.Fprintf(&b, " weights=age:%g,fairshare:%g,size:%g", t.AgeWeight, t.FairShareWeight, t.SizeWeight)
	}
	for _, f := range []struct {
		name, none string
		v          int64
	}{{"max-age", "", t.MaxAgeSec}, {"half-life", "", t.HalfLifeSec}, {"bf-window", "", t.BackfillWindowSec},
		{"bf-max-job-test", "all", int64(t.BackfillMaxJobTest)}, {"capacity-bucket", "", t.CapacityBucketSec},
		{"capacity-smooth", "none", int64(t.CapacitySmooth)}, {"capacity-min-pending", "none", t.CapacityMinPendingSec}} {
		switch {
		case f.v > 0:
			fmt.Fprintf(&b, " %s=%d", f.name, f.v)
		case f.v < 0:
			fmt.Fprintf(&b, " %s=%s", f.name, f.none)
		}
	}
	return b.String()
}
