package evaluate

import (
	"slices"
	"strconv"
)

// FrontierBudgetsH are the mean-overlap budgets of the frontier, hours.
var FrontierBudgetsH = []float64{0.5, 1, 2}

// FrontierPoint is the variant of a policy family that reduces
// interruption most within an overlap budget, with its metrics in that
// chain size.
type FrontierPoint struct {
	Policy                string  `json:"policy"`
	InterruptionReduction float64 `json:"interruption_reduction"`
	MeanOverlapH          float64 `json:"mean_overlap_h"`
	MeanCostH             float64 `json:"mean_cost_h"`
}

// FrontierTable maps a policy family (Family), a chain size (decimal
// node count) and an overlap budget (FrontierBudgetsH, hours, formatted
// with strconv 'g': "0.5", "1", "2") to the family's best variant; the
// point is nil (JSON null) when no variant meets the budget.
type FrontierTable map[string]map[string]map[string]*FrontierPoint

// BudgetKey is a budget's key in a FrontierTable.
func BudgetKey(budgetH float64) string { return strconv.FormatFloat(budgetH, 'g', -1, 64) }

// Frontier returns, for each policy family and chain size, the variant
// with the greatest interruption reduction among those whose mean
// overlap is at most each budget of FrontierBudgetsH; ties go to the
// lesser mean overlap, then the first name in sort order.
func Frontier(policies map[string]PolicyMetrics) FrontierTable {
	names := make([]string, 0, len(policies))
	for name := range policies {
		names = append(names, name)
	}
	slices.Sort(names)
	out := FrontierTable{}
	for _, name := range names {
		fam := Family(name)
		if out[fam] == nil {
			out[fam] = map[string]map[string]*FrontierPoint{}
		}
		for chain, cm := range policies[name].ByChain {
			byBudget := out[fam][chain]
			if byBudget == nil {
				byBudget = map[string]*FrontierPoint{}
				for _, b := range FrontierBudgetsH {
					byBudget[BudgetKey(b)] = nil
				}
				out[fam][chain] = byBudget
			}
			s := cm.Summary
			if s.Windows == 0 {
				continue
			}
			for _, b := range FrontierBudgetsH {
				if s.MeanOverlapH > b {
					continue
				}
				k := BudgetKey(b)
				if cur := byBudget[k]; cur == nil || s.InterruptionReduction > cur.InterruptionReduction ||
					(s.InterruptionReduction == cur.InterruptionReduction && s.MeanOverlapH < cur.MeanOverlapH) {
					byBudget[k] = &FrontierPoint{Policy: name, InterruptionReduction: s.InterruptionReduction,
						MeanOverlapH: s.MeanOverlapH, MeanCostH: s.MeanCostH}
				}
			}
		}
	}
	return out
}
