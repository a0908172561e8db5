package evaluate

import (
	"math"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
)

// Load classes by the reactive policy's interruption.
const (
	LoadLight  = "light"  // <= 2 h
	LoadMedium = "medium" // 2-12 h
	LoadHeavy  = "heavy"  // > 12 h
)

// LoadClasses lists the load classes, lightest first.
var LoadClasses = []string{LoadLight, LoadMedium, LoadHeavy}

// LoadClass returns the load class of a window whose reactive r is
// reactiveRSec.
func LoadClass(reactiveRSec int64) string {
	switch h := InterruptionH(reactiveRSec); {
	case h <= 2:
		return LoadLight
	case h <= 12:
		return LoadMedium
	}
	return LoadHeavy
}

// InterruptionH returns max(r, 0) in hours.
func InterruptionH(rSec int64) float64 { return float64(max(rSec, 0)) / 3600 }

// OverlapH returns max(-r, 0) in hours.
func OverlapH(rSec int64) float64 { return float64(max(-rSec, 0)) / 3600 }

// WastedNodeH returns the node-hours both jobs hold at once: nodes times
// the overlap.
func (r *Row) WastedNodeH() float64 { return float64(r.ChainNodes) * OverlapH(r.RSec) }

// Summary is one policy's metrics over a set of windows.
type Summary struct {
	Windows               int     `json:"windows"`
	MeanInterruptionH     float64 `json:"mean_interruption_h"`
	MedianInterruptionH   float64 `json:"median_interruption_h"`
	P90InterruptionH      float64 `json:"p90_interruption_h"`
	ZeroInterruptionShare float64 `json:"zero_interruption_share"`
	// ReactiveInterrupted counts the windows reactive interrupts;
	// RescuedShare is the share of them the policy brings to zero (0
	// when there are none).
	ReactiveInterrupted int     `json:"reactive_interrupted"`
	RescuedShare        float64 `json:"rescued_share"`
	// InterruptionReduction is 1 - sum / reactive's sum (0 when
	// reactive's sum is 0).
	InterruptionReduction float64 `json:"interruption_reduction"`
	MeanOverlapH          float64 `json:"mean_overlap_h"`
	// MeanCostH is the mean of CostH (interruption + λ·overlap, hours)
	// with Metrics.Lambda.
	MeanCostH float64 `json:"mean_cost_h"`
	// WastedNodeH is the total node-hours of overlap.
	WastedNodeH float64 `json:"wasted_node_h"`
	// GapToOracle*H are the policy's means minus the (lexicographic)
	// oracle's in the same windows (absent without an oracle).
	GapToOracleInterruptionH *float64 `json:"gap_to_oracle_interruption_h,omitempty"`
	GapToOracleOverlapH      *float64 `json:"gap_to_oracle_overlap_h,omitempty"`
	// GapToOracleCostH is the mean cost minus the cost-optimal oracle's
	// (oracle-cost) in the same windows, hours; CostVsOracleCost is their
	// ratio: 1.1 means within 10 % of the oracle's cost. Both are absent
	// without an oracle-cost, the ratio also when its mean cost is 0.
	GapToOracleCostH *float64 `json:"gap_to_oracle_cost_h,omitempty"`
	CostVsOracleCost *float64 `json:"cost_vs_oracle_cost,omitempty"`
}

// ChainMetrics is a policy's summary over the windows of one chain size,
// and by load class within them.
type ChainMetrics struct {
	Summary
	ByLoad map[string]Summary `json:"by_load"`
}

// PolicyMetrics is a policy's metrics per chain size (keys: the chain's
// node count in decimal), the primary view. Pooled mixes every chain size
// and is kept only under that explicit name.
type PolicyMetrics struct {
	ByChain map[string]ChainMetrics `json:"by_chain_nodes"`
	Pooled  Summary                 `json:"pooled"`
}

// Metrics is the metrics.json document. Windows counts (chain size,
// window) pairs; Lambda is the λ of every cost; Frontier is Frontier's
// result over Policies.
type Metrics struct {
	Windows    int                      `json:"windows"`
	Lambda     float64                  `json:"lambda"`
	ChainNodes []int                    `json:"chain_nodes"`
	Policies   map[string]PolicyMetrics `json:"policies"`
	Frontier   FrontierTable            `json:"frontier"`
	// Protocol and SimConfig say what was evaluated (the windows, the
	// zone, the partition and the scheduler), when the caller records
	// them (mirage evaluate does).
	Protocol  *features.Protocol `json:"protocol,omitempty"`
	SimConfig *sim.Config        `json:"sim_config,omitempty"`
	// ModelDirs maps each model policy family (KIND:DIR, DIR as named on
	// the command line) to its directory relative to the evaluation
	// directory (slash-separated), or absolute; WriteDir fills it, and
	// Metrics.ModelDir resolves it, never against the working directory.
	ModelDirs map[string]string `json:"model_dirs,omitempty"`
	// RealChains is the replay of the trace's own chains (RealChains),
	// when asked for (RunOptions.RealChains).
	RealChains *ChainsSummary `json:"real_chains,omitempty"`
	// Lifetime holds the lifetimes' metrics (Lifetimes), when asked for
	// (RunOptions.Lifetime).
	Lifetime *LifetimeSummary `json:"lifetime,omitempty"`
}

// OracleName is the oracle policy's name.
const OracleName = "oracle"

// unit is one (chain size, window).
type unit struct{ nodes, window int }

// refs holds the oracles' r per unit; a nil map means no such oracle.
type refs struct {
	oracle, oracleCost map[unit]int64
}

// Compute returns the metrics of rows (Replay's, or ReadCSV's) with costs
// weighing an hour of overlap lambda hours of interruption (Replay's
// Options.Lambda, when the rows have an oracle-cost).
func Compute(rows []Row, lambda float64) Metrics {
	byPolicy := map[string][]Row{}
	units := map[unit]bool{}
	for _, r := range rows {
		byPolicy[r.Policy] = append(byPolicy[r.Policy], r)
		units[unit{r.ChainNodes, r.Window}] = true
	}
	var ref refs
	for name, m := range map[string]*map[unit]int64{OracleName: &ref.oracle, OracleCostName: &ref.oracleCost} {
		if rs := byPolicy[name]; len(rs) > 0 {
			*m = map[unit]int64{}
			for _, r := range rs {
				(*m)[unit{r.ChainNodes, r.Window}] = r.RSec
			}
		}
	}
	m := Metrics{Windows: len(units), Lambda: lambda, ChainNodes: ChainSizes(rows), Policies: map[string]PolicyMetrics{}}
	for name, rs := range byPolicy {
		pm := PolicyMetrics{Pooled: summarise(rs, ref, lambda), ByChain: map[string]ChainMetrics{}}
		for _, n := range ChainSizes(rs) {
			sub := filter(rs, func(r Row) bool { return r.ChainNodes == n })
			cm := ChainMetrics{Summary: summarise(sub, ref, lambda), ByLoad: map[string]Summary{}}
			for _, c := range LoadClasses {
				cm.ByLoad[c] = summarise(filter(sub, func(r Row) bool { return LoadClass(r.ReactiveRSec) == c }), ref, lambda)
			}
			pm.ByChain[strconv.Itoa(n)] = cm
		}
		m.Policies[name] = pm
	}
	m.Frontier = Frontier(m.Policies)
	return m
}

func filter(rows []Row, keep func(Row) bool) []Row {
	var out []Row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// ChainSizes returns the distinct chain sizes of rows, ascending.
func ChainSizes(rows []Row) []int {
	var out []int
	for _, r := range rows {
		if !slices.Contains(out, r.ChainNodes) {
			out = append(out, r.ChainNodes)
		}
	}
	slices.Sort(out)
	return out
}

// summarise computes a Summary with costs at lambda, and the gaps to the
// oracles of ref in the rows' windows.
func summarise(rows []Row, ref refs, lambda float64) Summary {
	s := Summary{Windows: len(rows)}
	if len(rows) == 0 {
		return s
	}
	ints := make([]float64, len(rows))
	var sumI, sumO, sumC, sumReact float64
	var orI, orO, ocC float64
	zero, rescued := 0, 0
	for i, r := range rows {
		ints[i] = InterruptionH(r.RSec)
		sumI += ints[i]
		sumO += OverlapH(r.RSec)
		sumC += CostH(r.RSec, lambda)
		s.WastedNodeH += r.WastedNodeH()
		sumReact += InterruptionH(r.ReactiveRSec)
		if r.RSec <= 0 {
			zero++
		}
		if r.ReactiveRSec > 0 {
			s.ReactiveInterrupted++
			if r.RSec <= 0 {
				rescued++
			}
		}
		u := unit{r.ChainNodes, r.Window}
		orI += InterruptionH(ref.oracle[u])
		orO += OverlapH(ref.oracle[u])
		ocC += CostH(ref.oracleCost[u], lambda)
	}
	n := float64(len(rows))
	s.MeanInterruptionH, s.MeanOverlapH, s.MeanCostH = sumI/n, sumO/n, sumC/n
	slices.Sort(ints)
	s.MedianInterruptionH = quantile(ints, 0.5)
	s.P90InterruptionH = quantile(ints, 0.9)
	s.ZeroInterruptionShare = float64(zero) / n
	if s.ReactiveInterrupted > 0 {
		s.RescuedShare = float64(rescued) / float64(s.ReactiveInterrupted)
	}
	if sumReact > 0 {
		s.InterruptionReduction = 1 - sumI/sumReact
	}
	if ref.oracle != nil {
		gi, go_ := s.MeanInterruptionH-orI/n, s.MeanOverlapH-orO/n
		s.GapToOracleInterruptionH, s.GapToOracleOverlapH = &gi, &go_
	}
	if ref.oracleCost != nil {
		gc := s.MeanCostH - ocC/n
		s.GapToOracleCostH = &gc
		if ocC > 0 {
			ratio := sumC / ocC
			s.CostVsOracleCost = &ratio
		}
	}
	return s
}

// quantile returns the p-quantile of sorted x by linear interpolation
// between order statistics (type 7).
func quantile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	h := p * float64(len(x)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
}
