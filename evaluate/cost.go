package evaluate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultLambda is the default λ: an hour of overlap costs half an hour of
// interruption.
const DefaultLambda = 0.5

// OracleCostName is the cost-optimal oracle's name.
const OracleCostName = "oracle-cost"

// OracleCost is the cost-optimal hindsight oracle: of every grid time's
// submission it keeps the one of least cost (CostH with Lambda, or
// Options.Lambda when Lambda is nil), the earliest on ties. With Lambda
// set it is named "oracle-cost@λ=V": a sweep of
// λ traces the hindsight frontier, the least mean overlap at which any
// policy deciding on the same grid reaches each interruption reduction
// (the points of its lower convex hull; SweepLambdas).
type OracleCost struct {
	Lambda *float64
}

func (o OracleCost) Name() string {
	if o.Lambda == nil {
		return OracleCostName
	}
	return OracleCostName + "@λ=" + strconv.FormatFloat(*o.Lambda, 'g', -1, 64)
}

// Choose is BestCost(rSec) at the oracle's λ (lambda when it has none).
func (o OracleCost) Choose(rSec []int64, lambda float64) int {
	return BestCost(rSec, o.lambdaOr(lambda))
}

// lambdaOr returns the oracle's λ: Lambda, or def when it is nil.
func (o OracleCost) lambdaOr(def float64) float64 {
	if o.Lambda == nil {
		return def
	}
	return *o.Lambda
}

// SweepLambdas are the λ values SweepModels gives the cost-optimal oracle
// (oracle-cost@λ=V): from nearly free overlap (the hindsight oracle's
// least interruption) to overlap twice as costly as interruption.
var SweepLambdas = []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2}

// parseOracleCost parses "oracle-cost@λ=V" (V >= 0, finite).
func parseOracleCost(s string) (OracleCost, bool, error) {
	v, ok := strings.CutPrefix(s, OracleCostName+"@λ=")
	if !ok {
		return OracleCost{}, false, nil
	}
	l, err := strconv.ParseFloat(v, 64)
	if err != nil || !(l >= 0) || math.IsInf(l, 1) {
		return OracleCost{}, true, fmt.Errorf("%w %q: λ must be a finite number >= 0", ErrPolicy, s)
	}
	return OracleCost{Lambda: &l}, true, nil
}

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
