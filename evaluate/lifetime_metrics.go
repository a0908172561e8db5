package evaluate

import (
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/internal/bootstrap"
)

// Month is the span the lifetime metrics are given per: 30 days, seconds.
const Month = 30 * 24 * 3600

// LifetimeIntervalLevel is the level of the lifetime metrics' bootstrap
// intervals.
const LifetimeIntervalLevel = 0.95

// Interval is a point estimate with its bootstrap interval over the
// lifetimes (bootstrap.Percentile).
type Interval = bootstrap.Interval

// LifetimeSummary is metrics.json's lifetime: the lifetime replay's
// options and each policy's metrics per chain size.
type LifetimeSummary struct {
	LengthH float64 `json:"length_h"`
	// HandoverMin is the handover in minutes, absent without one
	// (HandoverOff: each link runs to its end).
	HandoverMin *float64 `json:"handover_min,omitempty"`
	Every       int      `json:"every_window"`
	Resamples   int      `json:"resamples"`
	Seed        uint64   `json:"seed"`
	Level       float64  `json:"level"`
	// Policies maps each policy to its metrics by chain size (decimal
	// node count).
	Policies map[string]map[string]LifetimeMetrics `json:"policies"`
	// Rows are the lifetimes (lifetimes.csv), not in the JSON.
	Rows []LifetimeRow `json:"-"`
}

// LifetimeMetrics is one policy's lifetimes of one chain size: means over
// the lifetimes with bootstrap intervals (resampling lifetimes), rates
// per 30 days (Month).
type LifetimeMetrics struct {
	Lifetimes int `json:"lifetimes"`
	// Availability is the share of the lifetime some link ran.
	Availability Interval `json:"availability"`
	// DowntimeH and P95DowntimeH are the mean and the 95th percentile of
	// the hours down per 30 days.
	DowntimeH    Interval `json:"downtime_h_per_30d"`
	P95DowntimeH Interval `json:"p95_downtime_h_per_30d"`
	// Interruptions and Links are per 30 days.
	Interruptions Interval `json:"interruptions_per_30d"`
	Links         Interval `json:"links_per_30d"`
	// NodeHPerServiceH is the node-hours charged per hour of service (up
	// time): the chain's node count with no overlap, more with it.
	NodeHPerServiceH Interval `json:"node_h_per_service_h"`
	// BeyondTraceShare is the share of the lifetimes' time after the
	// trace's last submission (where the queue only drains: optimistic).
	BeyondTraceShare float64 `json:"beyond_trace_share"`
}

// ComputeLifetimes returns the metrics of rows (Lifetimes') under lo's
// bootstrap.
func ComputeLifetimes(rows []LifetimeRow, lo LifetimeOptions) LifetimeSummary {
	reps, seed := lo.Resamples, lo.Seed
	if reps == 0 {
		reps = 2000
	}
	if seed == 0 {
		seed = 1
	}
	sum := LifetimeSummary{LengthH: float64(lo.LengthSec) / 3600, Every: max(lo.Every, 1), Resamples: reps, Seed: seed,
		Level: LifetimeIntervalLevel, Policies: map[string]map[string]LifetimeMetrics{}, Rows: rows}
	if lo.HandoverSec != HandoverOff {
		m := float64(lo.HandoverSec) / 60
		sum.HandoverMin = &m
	}
	type key struct {
		policy string
		nodes  int
	}
	groups := map[key][]LifetimeRow{}
	var keys []key
	for _, r := range rows {
		k := key{r.Policy, r.ChainNodes}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range keys {
		if sum.Policies[k.policy] == nil {
			sum.Policies[k.policy] = map[string]LifetimeMetrics{}
		}
		sum.Policies[k.policy][strconv.Itoa(k.nodes)] = lifetimeMetrics(groups[k], reps, seed)
	}
	return sum
}

func lifetimeMetrics(rows []LifetimeRow, reps int, seed uint64) LifetimeMetrics {
	n := len(rows)
	avail, down, intr, links, up, nodeH := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var beyond, total float64
	for i, r := range rows {
		length := float64(r.To - r.From)
		per := float64(Month) / length
		avail[i] = float64(r.UpSec) / length
		down[i] = float64(r.DowntimeSec()) / 3600 * per
		intr[i] = float64(r.Interruptions) * per
		links[i] = float64(len(r.Links)) * per
		up[i], nodeH[i] = float64(r.UpSec)/3600, float64(r.NodeSec)/3600
		beyond += float64(r.BeyondTraceSec)
		total += length
	}
	mean := func(v []float64) func([]int) float64 {
		return func(idx []int) float64 {
			if len(idx) == 0 {
				return 0
			}
			var s float64
			for _, i := range idx {
				s += v[i]
			}
			return s / float64(len(idx))
		}
	}
	p95 := func(idx []int) float64 {
		x := make([]float64, len(idx))
		for j, i := range idx {
			x[j] = down[i]
		}
		slices.Sort(x)
		return quantile(x, 0.95)
	}
	ratio := func(idx []int) float64 {
		var a, b float64
		for _, i := range idx {
			a, b = a+nodeH[i], b+up[i]
		}
		if b == 0 {
			return 0
		}
		return a / b
	}
	boot := func(stat func([]int) float64) Interval {
		return bootstrap.Percentile(n, stat, reps, LifetimeIntervalLevel, seed)
	}
	m := LifetimeMetrics{Lifetimes: n, Availability: boot(mean(avail)), DowntimeH: boot(mean(down)), P95DowntimeH: boot(p95),
		Interruptions: boot(mean(intr)), Links: boot(mean(links)), NodeHPerServiceH: boot(ratio)}
	if total > 0 {
		m.BeyondTraceShare = beyond / total
	}
	return m
}
