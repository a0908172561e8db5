package evaluate

import (
	"math"
	"slices"
	"strconv"
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
	// WastedNodeH is the total node-hours of overlap.
	WastedNodeH float64 `json:"wasted_node_h"`
	// GapToOracle*H are the policy's means minus the oracle's (absent
	// without an oracle).
	GapToOracleInterruptionH *float64 `json:"gap_to_oracle_interruption_h,omitempty"`
	GapToOracleOverlapH      *float64 `json:"gap_to_oracle_overlap_h,omitempty"`
}

// PolicyMetrics is a policy's summary overall, by load class and by chain
// size (keys: the chain's node count in decimal).
type PolicyMetrics struct {
	Summary
	ByLoad  map[string]Summary `json:"by_load"`
	ByChain map[string]Summary `json:"by_chain_nodes"`
}

// Metrics is the metrics.json document. Windows counts (chain size,
// window) pairs.
type Metrics struct {
	Windows  int                      `json:"windows"`
	Policies map[string]PolicyMetrics `json:"policies"`
}

// OracleName is the oracle policy's name.
const OracleName = "oracle"

// Compute returns the metrics of rows (Replay's, or ReadCSV's).
func Compute(rows []Row) Metrics {
	type key struct{ nodes, window int }
	byPolicy := map[string][]Row{}
	units := map[key]bool{}
	for _, r := range rows {
		byPolicy[r.Policy] = append(byPolicy[r.Policy], r)
		units[key{r.ChainNodes, r.Window}] = true
	}
	oracle := map[key]int64{}
	for _, r := range byPolicy[OracleName] {
		oracle[key{r.ChainNodes, r.Window}] = r.RSec
	}
	m := Metrics{Windows: len(units), Policies: map[string]PolicyMetrics{}}
	for name, rs := range byPolicy {
		var or []int64
		if len(oracle) > 0 {
			or = make([]int64, 0, len(rs))
			for _, r := range rs {
				or = append(or, oracle[key{r.ChainNodes, r.Window}])
			}
		}
		pm := PolicyMetrics{Summary: summarise(rs, or), ByLoad: map[string]Summary{}, ByChain: map[string]Summary{}}
		for _, n := range chainSizes(rs) {
			var sub []Row
			var subOr []int64
			for i, r := range rs {
				if r.ChainNodes == n {
					sub = append(sub, r)
					if or != nil {
						subOr = append(subOr, or[i])
					}
				}
			}
			pm.ByChain[strconv.Itoa(n)] = summarise(sub, subOr)
		}
		for _, c := range LoadClasses {
			var sub []Row
			var subOr []int64
			for i, r := range rs {
				if LoadClass(r.ReactiveRSec) == c {
					sub = append(sub, r)
					if or != nil {
						subOr = append(subOr, or[i])
					}
				}
			}
			if or != nil && subOr == nil {
				subOr = []int64{}
			}
			pm.ByLoad[c] = summarise(sub, subOr)
		}
		m.Policies[name] = pm
	}
	return m
}

// chainSizes returns the distinct chain sizes of rows, ascending.
func chainSizes(rows []Row) []int {
	var out []int
	for _, r := range rows {
		if !slices.Contains(out, r.ChainNodes) {
			out = append(out, r.ChainNodes)
		}
	}
	slices.Sort(out)
	return out
}

// summarise computes a Summary; oracleR, when not nil, is the oracle's r
// in each row's window.
func summarise(rows []Row, oracleR []int64) Summary {
	s := Summary{Windows: len(rows)}
	if len(rows) == 0 {
		return s
	}
	ints := make([]float64, len(rows))
	var sumI, sumO, sumReact float64
	zero, rescued := 0, 0
	for i, r := range rows {
		ints[i] = InterruptionH(r.RSec)
		sumI += ints[i]
		sumO += OverlapH(r.RSec)
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
	}
	n := float64(len(rows))
	s.MeanInterruptionH, s.MeanOverlapH = sumI/n, sumO/n
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
	if oracleR != nil {
		var oi, oo float64
		for _, r := range oracleR {
			oi += InterruptionH(r)
			oo += OverlapH(r)
		}
		gi, go_ := s.MeanInterruptionH-oi/n, s.MeanOverlapH-oo/n
		s.GapToOracleInterruptionH, s.GapToOracleOverlapH = &gi, &go_
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
