package reports

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/mirage-hpc/mirage/evaluate"
)

// Study is what the evaluation was of: the facts the summary opens with.
type Study struct {
	// Name is the study's name (Options.Study; "" when not given).
	Name string `json:"name,omitempty"`
	// Trace is the trace's file name; TraceFirst and TraceLast its first
	// and last submission (UTC dates); TraceJobs its job count. Empty
	// without Options.Trace.
	Trace      string `json:"trace,omitempty"`
	TraceFirst string `json:"trace_first,omitempty"`
	TraceLast  string `json:"trace_last,omitempty"`
	TraceJobs  int    `json:"trace_jobs,omitempty"`
	// TraceWaits is the number of the trace's jobs with a recorded wait
	// (their start known): 0 when its waits are unknown.
	TraceWaits int `json:"trace_waits_known"`
	// Protocol, Profile, Mode and PartitionNodes are the evaluation
	// protocol's (metrics.json); empty or 0 when it records none.
	Protocol       string `json:"protocol,omitempty"`
	Profile        string `json:"profile,omitempty"`
	Mode           string `json:"mode,omitempty"`
	PartitionNodes int    `json:"partition_nodes,omitempty"`
	// ChainNodes are the chain sizes: P and Q each use that many nodes.
	ChainNodes []int `json:"chain_nodes"`
	// Windows is the number of validation windows per chain size, from
	// FirstWindow to LastWindow (UTC), every Interval.
	Windows     int    `json:"windows"`
	FirstWindow string `json:"first_window"`
	LastWindow  string `json:"last_window"`
	Interval    string `json:"window_interval,omitempty"`
	Warmup      string `json:"warmup,omitempty"`
	Workload    string `json:"workload,omitempty"`
	// Decision is how often a policy decides whether to submit Q.
	Decision string `json:"decision_interval"`
	// BudgetH is the mean-overlap budget per window (hours) the
	// recommendation is chosen within; BudgetFrom says where it came from.
	BudgetH    float64 `json:"overlap_budget_h"`
	BudgetFrom string  `json:"overlap_budget_from"`
	Lambda     float64 `json:"lambda"`
	// LoadWindows counts windows per load class (all chain sizes).
	LoadWindows map[string]int `json:"load_windows"`
	// Resamples and Seed are the bootstrap's.
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

// Recommendation is, for one chain size, the policy with the largest
// interruption reduction whose mean overlap is within the budget.
type Recommendation struct {
	Nodes int   `json:"chain_nodes"`
	Stats Stats `json:"stats"`
	// WithinBudget is false when no policy met the budget: Stats is then
	// the one with the least mean overlap.
	WithinBudget bool `json:"within_budget"`
	// Reactive is the reactive policy's mean interruption (hours).
	ReactiveH float64 `json:"reactive_mean_interruption_h"`
	// Oracle and OracleCost are the hindsight oracles' outcomes (nil when
	// not evaluated); GapH is the recommended policy's mean interruption
	// minus the oracle's, and CostRatio its mean cost over oracle-cost's.
	Oracle     *Stats   `json:"oracle,omitempty"`
	OracleCost *Stats   `json:"oracle_cost,omitempty"`
	GapH       *float64 `json:"gap_to_oracle_h,omitempty"`
	CostRatio  *float64 `json:"cost_vs_oracle_cost,omitempty"`
	// Recommended says whether the report recommends Stats' policy: it
	// does only with grounds (Grounds), and Withheld says why not
	// otherwise (Stats is then the best candidate, not a recommendation).
	Recommended bool     `json:"recommended"`
	Withheld    []Reason `json:"withheld,omitempty"`
	// Next is how to deploy the policy.
	Next NextStep `json:"next"`
	// RunH is the predecessor's mean run time over the windows (hours):
	// one link of a chain; LinksPerMonth is HoursPerMonth / RunH, the
	// links a service chained without pause has a month (0 when unknown).
	RunH          float64 `json:"mean_p_run_h"`
	LinksPerMonth float64 `json:"links_per_month"`
}

// PerMonth converts a mean per window (one link) to a month of a service
// chained without pause.
func (r Recommendation) PerMonth(perWindow float64) float64 { return perWindow * r.LinksPerMonth }

// recommend picks, among the non-oracle, non-sweep policies of a chain size, the
// one with the greatest reduction (point estimate) and a mean overlap at
// most budgetH; ties go to less overlap, then the name. When none meets
// the budget, the least-overlap policy.
func recommend(all []Stats, budgetH float64) (Stats, bool) {
	var cands []Stats
	for _, s := range all {
		// Sweep variants (…@θ=…) are validation curves, not operating
		// points: picking one would choose a parameter on the validation
		// windows. Candidates are the baselines and each model at the
		// point chosen on its training windows.
		if n := evaluate.ParseName(s.Policy); !n.IsOracle() && !n.Swept {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return Stats{}, false
	}
	within := slices.DeleteFunc(slices.Clone(cands), func(s Stats) bool { return s.OverlapH.Point > budgetH+1e-12 })
	if len(within) == 0 {
		return slices.MinFunc(cands, func(a, b Stats) int {
			return cmp.Or(cmp.Compare(a.OverlapH.Point, b.OverlapH.Point), cmp.Compare(a.Policy, b.Policy))
		}), false
	}
	return slices.MinFunc(within, func(a, b Stats) int {
		return cmp.Or(cmp.Compare(b.Reduction.Point, a.Reduction.Point), cmp.Compare(a.OverlapH.Point, b.OverlapH.Point),
			cmp.Compare(a.Policy, b.Policy))
	}), true
}

// utcDay formats Unix seconds as a UTC date and time.
func utcTime(sec int64) string { return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04 UTC") }

// duration formats d compactly ("6h", "10m", "5d").
func duration(d time.Duration) string {
	switch {
	case d == 0:
		return ""
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d d", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}

// role is how the figures label r's policy: "recommended", or "best
// candidate" when the recommendation is withheld.
func (r Recommendation) role() string {
	if r.Recommended {
		return "recommended"
	}
	return "best candidate"
}

// Role is role, for the page.
func (r Recommendation) Role() string { return r.role() }

// secondsPhrase matches "N s" (seconds written by other packages' text).
var secondsPhrase = regexp.MustCompile(`\b(\d+) s\b`)

// readableSeconds rewrites every "N s" of text as a duration in days,
// hours or minutes when N is a whole number of them ("604800 s" →
// "7 d"), else leaves it.
func readableSeconds(text string) string {
	return secondsPhrase.ReplaceAllStringFunc(text, func(m string) string {
		n, err := strconv.ParseInt(secondsPhrase.FindStringSubmatch(m)[1], 10, 64)
		if err != nil || n < 60 || n%60 != 0 {
			return m
		}
		return duration(time.Duration(n) * time.Second)
	})
}
