package train

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/features"
)

// DefaultOverlapBudgetH is the overlap budget of `train --overlap-budget`:
// the most mean overlap per window, in hours, an operating point may cost.
const DefaultOverlapBudgetH = 1.0

// Every policy of a Target is one threshold rule on a score: submit Q at
// the first decision time whose score ≥ the threshold (and at P's end in
// any case). The score is the model's prediction for TargetR and
// TargetInterrupt, and the predicted (or, for TargetEstimate, the
// scheduler's estimated) start of Q relative to P's expected end for
// TargetWait and TargetEstimate, and minus the predicted time to the last
// safe decision for TargetDeadline, in hours. The threshold is −θ (r), τ
// (interrupt, cliff), λ (stop) or −margin (wait, estimate); see ParamOf
// and ThresholdOf.

// RuleScore returns the rule's score of one decision from a model's
// prediction (ignored for TargetEstimate), P's remaining time to its
// expected end (seconds, ≥ 0) and, for TargetEstimate, the scheduler's
// estimate of Q's start minus P's expected end (seconds). When Q fits
// nowhere in the backfill window the estimate is taken as the window's
// end, a lower bound (the feature q_est_start_minus_p_end_sec does so):
// the rule then submits only if even that bound is late enough, where
// the plain slurm-estimate policy submits at once.
func RuleScore(t Target, pred float64, pRemainingSec float64, estMinusPEndSec float64) float64 {
	switch t {
	case TargetWait:
		return pred - pRemainingSec/3600
	case TargetDeadline:
		return -pred
	case TargetEstimate, TargetEstimateRT:
		return estMinusPEndSec / 3600
	case TargetFixedLead:
		return -pRemainingSec / 3600
	}
	return pred
}

// ParamName returns the name of t's rule parameter: theta_h, tau or
// margin_h.
func ParamName(t Target) string {
	switch t {
	case TargetInterrupt, TargetCliff:
		return "tau"
	case TargetWait, TargetEstimate, TargetEstimateRT, TargetDeadline:
		return "margin_h"
	case TargetAdvantage:
		return "bias_h"
	case TargetStop:
		return "lambda"
	case TargetFixedLead:
		return "lead_h"
	}
	return "theta_h"
}

// RuleText describes t's rule in words, for manifests and reports.
func RuleText(t Target) string {
	switch t {
	case TargetInterrupt:
		return "submit when P(r > 0) >= tau"
	case TargetCliff:
		return "submit when P(r > 0 if submitted at the next decision) >= tau"
	case TargetWait:
		return "submit when predicted wait >= P's remaining time - margin_h"
	case TargetDeadline:
		return "submit when the predicted time to the last safe decision <= margin_h"
	case TargetStop:
		return "submit when the predicted extra interruption of waiting one more decision, hours per hour of waiting, >= lambda"
	case TargetAdvantage:
		return "submit when Q(submit) - Q(wait) + bias_h >= 0 (the DQN's greedy rule with a bias)"
	case TargetEstimate:
		return "submit when the scheduler's estimated start of Q (the backfill window's end when Q fits nowhere in it) >= P's expected end - margin_h"
	case TargetFixedLead:
		return "submit when P's remaining time to its expected end (start + limit) <= lead_h"
	case TargetEstimateRT:
		return "submit when the scheduler's estimated start of Q with predicted run times (the backfill window's end when Q fits nowhere in it) >= P's expected end - margin_h"
	}
	return "submit when predicted r >= -theta_h"
}

// ParamOf returns the rule parameter (θ, τ, λ or margin) of a threshold
// on the score; ThresholdOf is its inverse.
func ParamOf(t Target, threshold float64) float64 {
	if t.Classification() || t == TargetStop {
		return threshold
	}
	return -threshold
}

// ThresholdOf returns the score threshold of a rule parameter.
func ThresholdOf(t Target, param float64) float64 { return ParamOf(t, param) }

// OperatingPoint is the rule parameter chosen on training data only:
// per chain size, the parameter whose replay on the training windows
// (out-of-fold predictions) cuts interruption the most with a mean
// overlap within the budget.
type OperatingPoint struct {
	Target Target `json:"target"`
	Rule   string `json:"rule"`
	Param  string `json:"param"`
	// BudgetH is the overlap budget, hours of mean overlap per window.
	BudgetH float64 `json:"overlap_budget_h"`
	// Source says what was replayed, e.g. "out-of-fold predictions of 5
	// time-blocked folds on 684 training windows".
	Source string `json:"source"`
	// ByChain holds the choice per chain size (decimal node count).
	ByChain map[string]ChainPoint `json:"by_chain_nodes"`
	// Default is chosen over every chain size together, for sizes not
	// trained on.
	Default ChainPoint `json:"default"`
	// Frontier is, per chain size, the Pareto frontier of the replayed
	// parameters: the best reduction at each mean overlap.
	Frontier map[string][]ChainPoint `json:"cv_frontier"`
	// EveryBlock is set when the budget had to hold in every time block
	// of the training period (Unit.Block), not only on average.
	EveryBlock bool `json:"budget_every_block,omitempty"`
	// BudgetRule is the statistic of the CV overlap held within the
	// budget ("" in manifests of earlier versions: BudgetMean, or
	// BudgetEveryBlock with EveryBlock).
	BudgetRule BudgetRule `json:"budget_rule,omitempty"`
}

// ChainPoint is one parameter's replayed outcome on the training windows
// of one chain size (or all).
type ChainPoint struct {
	// Value is the rule parameter (θ h, τ, λ, or margin h) and Threshold the
	// score threshold it means; ±Inf are written as ±1e300.
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Windows   int     `json:"windows"`
	// InterruptionReduction is 1 − the policy's total interruption / the
	// reactive policy's on the same windows (0 when reactive's is 0).
	InterruptionReduction float64 `json:"interruption_reduction"`
	MeanInterruptionH     float64 `json:"mean_interruption_h"`
	MeanOverlapH          float64 `json:"mean_overlap_h"`
	ZeroInterruptionShare float64 `json:"zero_interruption_share"`
	// MaxBlockOverlapH is the largest mean overlap of one time block of
	// the training period (Unit.Block); equal to MeanOverlapH with one.
	MaxBlockOverlapH float64 `json:"max_block_overlap_h"`
	// WithinBudget is false when no parameter met the budget (then the
	// least overlap was chosen).
	WithinBudget bool `json:"within_budget"`
	// The chosen points (ByChain, Default; not the frontier's) record
	// their CV overlap: BlockOverlapH per time block (the CV folds' test
	// blocks, hours per window), OverlapBoundH the statistic held within
	// the budget (OperatingPoint.BudgetRule: the mean, the largest
	// block's, or mean + BoundK·sd of the blocks' means) and, for
	// BudgetNested, BoundHeld whether BoundK held on every held-out
	// block (false: the largest k tried, NestedKGrid, did not).
	BlockOverlapH []float64 `json:"cv_block_overlap_h,omitempty"`
	OverlapBoundH float64   `json:"cv_overlap_bound_h,omitempty"`
	BoundK        float64   `json:"cv_bound_k,omitempty"`
	BoundHeld     *bool     `json:"cv_bound_held,omitempty"`
}

// For returns the parameter for a chain of nodes nodes: its own choice,
// or Default.
func (o *OperatingPoint) For(nodes int) ChainPoint {
	if c, ok := o.ByChain[strconv.Itoa(nodes)]; ok {
		return c
	}
	return o.Default
}

// Unit groups the sample rows of one window and chain size in decision
// order; the last row is P's end (the reactive decision).
type Unit struct {
	ChainNodes int32
	Rows       []int
	// Block is the time block of the training period the window is in
	// (its cross-validation fold's test block); 0 for all by default.
	Block int
}

// Units groups the rows of s by (chain size, window), each group sorted
// by probe time, the groups by chain size then window start.
func Units(s *features.Samples) []Unit {
	type key struct {
		nodes, win int32
	}
	idx := map[key]int{}
	var us []Unit
	for i := range s.Len() {
		k := key{s.ChainNodes[i], s.WindowID[i]}
		u, ok := idx[k]
		if !ok {
			u = len(us)
			idx[k] = u
			us = append(us, Unit{ChainNodes: k.nodes})
		}
		us[u].Rows = append(us[u].Rows, i)
	}
	for _, u := range us {
		slices.SortFunc(u.Rows, func(a, b int) int { return cmp.Compare(s.ProbeTime[a], s.ProbeTime[b]) })
	}
	slices.SortStableFunc(us, func(a, b Unit) int {
		if c := cmp.Compare(a.ChainNodes, b.ChainNodes); c != 0 {
			return c
		}
		return cmp.Compare(s.WindowStart[a.Rows[0]], s.WindowStart[b.Rows[0]])
	})
	return us
}

// replayed is one unit's outcome under every candidate threshold: the
// prefix maximum of its scores (fire index = first k with pmax[k] ≥ c).
type replayUnit struct {
	nodes int32
	block int
	pmax  []float64
	r     []int64 // r of each row, seconds
}

// ChooseOperatingPoint is ChooseOperatingPointRule with BudgetMean, or
// BudgetEveryBlock when everyBlock.
func ChooseOperatingPoint(t Target, scores []float64, rSec []int64, units []Unit, budgetH float64, everyBlock bool, source string) (*OperatingPoint, error) {
	rule := BudgetMean
	if everyBlock {
		rule = BudgetEveryBlock
	}
	return ChooseOperatingPointRule(t, scores, rSec, units, budgetH, rule, source)
}

// ChooseOperatingPointRule replays the threshold rule of target t with the
// row scores on the units (labels rSec = Q.start − P.end of each row, as
// the simulator gave them) for a range of thresholds, and chooses per
// chain size the one with the largest interruption reduction among those
// with mean overlap ≤ budgetH (ties: less overlap, then the later
// submission), the overlap compared with the budget being rule's
// statistic of the CV overlap over the time blocks (Unit.Block): the
// mean (BudgetMean), the largest block's (BudgetEveryBlock) or mean +
// k·sd with k learned leaving one block out (BudgetNested). source is
// recorded as OperatingPoint.Source.
func ChooseOperatingPointRule(t Target, scores []float64, rSec []int64, units []Unit, budgetH float64, rule BudgetRule, source string) (*OperatingPoint, error) {
	if len(units) == 0 {
		return nil, fmt.Errorf("operating point: no windows")
	}
	rus := make([]replayUnit, len(units))
	for i, u := range units {
		ru := replayUnit{nodes: u.ChainNodes, block: u.Block, pmax: make([]float64, len(u.Rows)), r: make([]int64, len(u.Rows))}
		m := math.Inf(-1)
		for k, row := range u.Rows {
			if v := scores[row]; v > m {
				m = v
			}
			ru.pmax[k], ru.r[k] = m, rSec[row]
		}
		rus[i] = ru
	}
	cands := candidates(scores)
	op := &OperatingPoint{Target: t, Rule: RuleText(t), Param: ParamName(t), BudgetH: budgetH, Source: source,
		ByChain: map[string]ChainPoint{}, Frontier: map[string][]ChainPoint{}, EveryBlock: rule == BudgetEveryBlock, BudgetRule: rule}
	var sizes []int32
	for _, u := range rus {
		if !slices.Contains(sizes, u.nodes) {
			sizes = append(sizes, u.nodes)
		}
	}
	slices.Sort(sizes)
	pick := func(sel func(int32) bool) (ChainPoint, []ChainPoint) {
		cs := make([]candidate, len(cands))
		pts := make([]ChainPoint, len(cands))
		for ci, c := range cands {
			cs[ci] = replayAt(t, rus, c, sel)
			pts[ci] = cs[ci].pt
		}
		return chooseRule(cs, budgetH, rule), frontier(pts)
	}
	for _, n := range sizes {
		key := strconv.Itoa(int(n))
		op.ByChain[key], op.Frontier[key] = pick(func(x int32) bool { return x == n })
	}
	op.Default, _ = pick(func(int32) bool { return true })
	return op, nil
}

// candidates returns the thresholds tried: +Inf (reactive), the scores'
// quantiles every 0.25 %, and −Inf (submit at once), descending.
func candidates(scores []float64) []float64 {
	fin := make([]float64, 0, len(scores))
	for _, v := range scores {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			fin = append(fin, v)
		}
	}
	slices.Sort(fin)
	out := []float64{math.Inf(1)}
	if len(fin) > 0 {
		for q := 400; q >= 0; q-- {
			out = append(out, fin[(len(fin)-1)*q/400])
		}
	}
	out = append(out, math.Inf(-1))
	slices.Reverse(out)
	out = slices.Compact(out)
	slices.Reverse(out)
	return out
}

// replayAt replays threshold c on the units sel accepts: the point over
// them and its sums per time block.
func replayAt(t Target, rus []replayUnit, c float64, sel func(int32) bool) candidate {
	p := ChainPoint{Threshold: clampInf(c), Value: clampInf(ParamOf(t, c))}
	var sumI, sumO, sumReact float64
	zero := 0
	var blocks []blockSum
	for i := range rus {
		u := &rus[i]
		if !sel(u.nodes) {
			continue
		}
		k, _ := slices.BinarySearch(u.pmax, c) // pmax ascending: first k with pmax[k] >= c
		last := len(u.r) - 1
		k = min(k, last)
		r := u.r[k]
		p.Windows++
		in, ov, re := float64(max(r, 0))/3600, float64(max(-r, 0))/3600, float64(max(u.r[last], 0))/3600
		sumI += in
		sumO += ov
		if u.block >= len(blocks) {
			blocks = append(blocks, make([]blockSum, u.block+1-len(blocks))...)
		}
		b := &blocks[u.block]
		b.interruption += in
		b.overlap += ov
		b.reactive += re
		b.windows++
		sumReact += re
		if r <= 0 {
			zero++
			b.zero++
		}
	}
	if p.Windows > 0 {
		n := float64(p.Windows)
		p.MeanInterruptionH, p.MeanOverlapH, p.ZeroInterruptionShare = sumI/n, sumO/n, float64(zero)/n
	}
	if sumReact > 0 {
		p.InterruptionReduction = 1 - sumI/sumReact
	}
	for _, b := range blocks {
		if b.windows > 0 {
			p.MaxBlockOverlapH = max(p.MaxBlockOverlapH, b.overlap/float64(b.windows))
		}
	}
	return candidate{pt: p, blocks: blocks}
}

// choose returns the point with the largest reduction within the budget
// (with everyBlock, in every time block; ties: less overlap, then the
// higher threshold, i.e. later), or the one with the least overlap when
// none is within it.
func choose(pts []ChainPoint, budgetH float64, everyBlock bool) ChainPoint {
	i, within := chooseIndex(pts, budgetH, everyBlock)
	p := pts[i]
	p.WithinBudget = within
	return p
}

// chooseIndex is choose's index, and whether the point is within the
// budget.
func chooseIndex(pts []ChainPoint, budgetH float64, everyBlock bool) (int, bool) {
	best := -1
	for i, p := range pts {
		if ov := p.MeanOverlapH; ov > budgetH+1e-12 || everyBlock && p.MaxBlockOverlapH > budgetH+1e-12 {
			continue
		}
		if best < 0 || p.InterruptionReduction > pts[best].InterruptionReduction ||
			p.InterruptionReduction == pts[best].InterruptionReduction && p.MeanOverlapH < pts[best].MeanOverlapH {
			best = i
		}
	}
	if best >= 0 {
		return best, true
	}
	for i, p := range pts {
		if best < 0 || p.MeanOverlapH < pts[best].MeanOverlapH {
			best = i
		}
	}
	return best, false
}

// frontier returns the Pareto-efficient points by ascending overlap: each
// has a larger reduction than every point with less or equal overlap.
func frontier(pts []ChainPoint) []ChainPoint {
	s := slices.Clone(pts)
	slices.SortStableFunc(s, func(a, b ChainPoint) int {
		if c := cmp.Compare(a.MeanOverlapH, b.MeanOverlapH); c != 0 {
			return c
		}
		return -cmp.Compare(a.InterruptionReduction, b.InterruptionReduction)
	})
	var out []ChainPoint
	for _, p := range s {
		if len(out) == 0 || p.InterruptionReduction > out[len(out)-1].InterruptionReduction {
			out = append(out, p)
		}
	}
	return out
}

// clampInf maps ±Inf to ±1e300 so the value survives JSON.
func clampInf(v float64) float64 {
	switch {
	case math.IsInf(v, 1):
		return 1e300
	case math.IsInf(v, -1):
		return -1e300
	}
	return v
}
