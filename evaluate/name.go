package evaluate

import (
	"strconv"
	"strings"
)

// Name is a policy name taken apart: "KIND:DIR@KEY=VALUE" (a model
// policy's sweep variant), "KIND:DIR", or a built-in name such as
// "reactive" or "slurm-estimate@margin=0.25".
type Name struct {
	// Policy is the whole name.
	Policy string
	// Family is the name without a sweep suffix (Family's).
	Family string
	// Kind is the part before ':' of Family ("forest", "dqn", …), or
	// Family itself for a built-in policy.
	Kind string
	// Dir is the model directory as the policy named it ("" for a
	// built-in policy); ModelDirs says where it is.
	Dir string
	// Key and Value are the sweep parameter ("θ", "τ", "margin") and its
	// value; Swept says whether there is one.
	Key   string
	Value float64
	Swept bool
	// TimeMin is the name's "tmin=DUR" (Q's --time-min; TimeMinKey), ""
	// when none; Family keeps it, Kind and Dir do not.
	TimeMin string
}

// ParseName takes a policy name apart; it never fails: a name it does not
// recognise is a built-in policy of its own family.
func ParseName(policy string) Name {
	n := Name{Policy: policy}
	base := policy
	if i := strings.LastIndex(policy, "@"+TimeMinKey+"="); i >= 0 {
		base, n.TimeMin = policy[:i], policy[i+1:]
	}
	n.Family = base
	if i := strings.LastIndex(base, "@"); i >= 0 {
		key, val, found := strings.Cut(base[i+1:], "=")
		if v, err := strconv.ParseFloat(val, 64); found && key != "" && err == nil {
			n.Family, n.Key, n.Value, n.Swept = base[:i], key, v, true
		}
	}
	n.Kind = n.Family
	if kind, dir, ok := strings.Cut(n.Family, ":"); ok && dir != "" {
		n.Kind, n.Dir = kind, dir
	}
	if n.TimeMin != "" {
		n.Family += "@" + n.TimeMin
	}
	return n
}

// IsModel reports whether the policy runs a model directory (KIND:DIR).
func (n Name) IsModel() bool { return n.Dir != "" }

// IsOracle reports whether the policy is one of the hindsight oracles.
func (n Name) IsOracle() bool { return n.Family == OracleName || n.Family == OracleCostName }
