package evaluate

import (
	"math"
	"strings"
)

// DefaultLambda is the default λ: an hour of overlap costs half an hour of
// interruption.
const DefaultLambda = 0.5

// OracleCostName is the cost-optimal oracle's name.
const OracleCostName = "oracle-cost"

// OracleCost marks the cost-optimal hindsight oracle: Replay labels every
// grid time and keeps the submission of least cost (CostH with
// Options.Lambda), the earliest on ties. Its Decide is never called.
type OracleCost struct{}

func (OracleCost) Name() string                          { return OracleCostName }
func (OracleCost) Decide(*DecisionContext) (bool, error) { return false, nil }

// CostH returns an outcome's cost in hours: its interruption plus lambda
// times its overlap (r in seconds).
func CostH(rSec int64, lambda float64) float64 {
	return InterruptionH(rSec) + lambda*OverlapH(rSec)
}

// BestCost returns the index of the cost-optimal oracle's choice among the
// outcomes r (seconds): the least CostH with lambda, the earliest on ties.
// It returns -1 for no outcomes.
func BestCost(r []int64, lambda float64) int {
	best, bestCost := -1, math.Inf(1)
	for i, v := range r {
		if c := CostH(v, lambda); best < 0 || c < bestCost {
			best, bestCost = i, c
		}
	}
	return best
}

// Family returns a policy's family: its name without a sweep suffix
// "@KEY=VALUE" ("forest:m@θ=0.5" -> "forest:m"); a name without one is a
// family of one.
func Family(policy string) string {
	i := strings.LastIndex(policy, "@")
	if i < 0 || !strings.Contains(policy[i:], "=") {
		return policy
	}
	return policy[:i]
}
