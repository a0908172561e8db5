package evaluate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mirage-hpc/mirage/internal/suggest"
)

// policyNames are the policies that read no model directory.
var policyNames = []string{"reactive", "immediate", "avg", "slurm-estimate", "slurm-estimate-rt", "oracle", OracleCostName, DependencyName, FixedLeadName}

// policyDirKinds are the KINDs of the policies KIND:DIR, which read a
// model directory.
var policyDirKinds = []string{"slurm-estimate", "runtime-estimate", "forecast", "forest", "xgboost", "dqn", FixedLeadName}

// policyWant is what an unknown policy's error asks for.
var policyWant = "want reactive, immediate, avg, dependency, fixed-lead, fixed-lead@lead=H, fixed-lead:DIR, slurm-estimate, slurm-estimate-rt, slurm-estimate:DIR, runtime-estimate:DIR, forecast:DIR, oracle, " +
	OracleCostName + ", " + OracleCostName + "@λ=V, forest:DIR, xgboost:DIR or dqn:DIR, a causal one optionally with @tmin=DUR"

// policyHint is "; did you mean NAME?" for a mistyped policy name (a
// KIND:DIR's KIND compared with the kinds), or "".
func policyHint(s string) string {
	if kind, dir, ok := strings.Cut(s, ":"); ok {
		if c := suggest.Closest(kind, policyDirKinds); len(c) > 0 {
			return "; did you mean " + c[0] + ":" + dir + "?"
		}
		return ""
	}
	return suggest.Hint(s, policyNames)
}

// CheckPolicies checks a comma-separated policy list as ParsePolicies
// does, without opening any model directory: each name is known (a
// KIND:DIR's kind, with a DIR), oracle-cost@λ=V's V is a finite number
// >= 0, and none is given twice. A list that passes can still fail
// ParsePolicies on a DIR that holds no model of its kind. Any causal
// policy may end in "@tmin=DUR" (Q's --time-min; TimeMinKey).
func CheckPolicies(list string) error {
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if seen[s] {
			return fmt.Errorf("%w: %q given twice", ErrPolicy, s)
		}
		seen[s] = true
		s, tm, err := cutTimeMin(s)
		if err != nil {
			return err
		}
		if n := ParseName(s); tm.set && n.IsOracle() {
			return fmt.Errorf("%w %q: a hindsight policy takes no @%s", ErrPolicy, s+"@"+TimeMinKey+"="+tm.text, TimeMinKey)
		}
		if slices.Contains(policyNames, s) {
			continue
		}
		if _, ok, err := parseOracleCost(s); ok {
			if err != nil {
				return err
			}
			continue
		}
		if _, ok, err := parseFixedLead(s); ok {
			if err != nil {
				return err
			}
			continue
		}
		if kind, dir, ok := strings.Cut(s, ":"); ok && dir != "" && slices.Contains(policyDirKinds, kind) {
			continue
		}
		return fmt.Errorf("%w %q: %s%s", ErrPolicy, s, policyWant, policyHint(s))
	}
	return nil
}
