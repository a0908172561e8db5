package reports

import (
	"github.com/mirage-hpc/mirage/evaluate"
)

// HoursPerMonth is the length of the month the report's per-month costs
// are for: 365.25 days / 12, in hours.
const HoursPerMonth = 730.5

// NextStep is how to deploy a recommended policy: a command to run and
// what it does.
type NextStep struct {
	// Command is a shell line ("" when the policy has none, e.g. a
	// built-in rule).
	Command string `json:"command,omitempty"`
	Text    string `json:"text"`
}

// adviseKinds are the model kinds mirage advise loads.
var adviseKinds = map[string]bool{"forest": true, "xgboost": true, "dqn": true, "slurm-estimate": true}

// nextStep returns how to deploy policy: mirage advise with its model
// directory (as the evaluation names it) for a model, sbatch for the
// reactive and immediate baselines, and what the rule does for the
// other built-in ones.
func nextStep(policy string) NextStep {
	n := evaluate.ParseName(policy)
	switch {
	case n.IsModel() && adviseKinds[n.Kind]:
		return NextStep{Command: "mirage advise --model " + n.Dir + " --job P_JOBID",
			Text: "while a predecessor P runs, ask the model whether to submit its successor Q now (the model directory as the evaluation names it; add --watch --submit --successor Q.sbatch to submit Q when the answer is yes)"}
	case n.IsModel():
		return NextStep{Text: "a " + n.Kind + " model, which mirage advise does not load: deploy its rule by hand"}
	case n.Family == "reactive":
		return NextStep{Command: "sbatch --dependency=afterany:P_JOBID Q.sbatch", Text: "submit Q when P ends: no model needed"}
	case n.Family == "immediate":
		return NextStep{Command: "sbatch Q.sbatch", Text: "submit Q at once, beside P"}
	}
	if w, ok := builtins[n.Family]; ok {
		return NextStep{Text: "a built-in rule (" + w + "), no model to deploy"}
	}
	return NextStep{Text: "no deployment step is known for this policy"}
}

// meanRunH returns, per chain size, the mean run time of the
// predecessor P over the windows (hours; from the reactive policy's
// rows, else any policy's), which is how long one link of a chain lasts.
func meanRunH(rows []evaluate.Row) map[int]float64 {
	type acc struct {
		sum float64
		n   int
	}
	reactive, any := map[int]*acc{}, map[int]*acc{}
	seen := map[[2]int]bool{}
	for _, r := range rows {
		if r.PEnd <= r.PStart {
			continue
		}
		add := func(m map[int]*acc) {
			a := m[r.ChainNodes]
			if a == nil {
				a = &acc{}
				m[r.ChainNodes] = a
			}
			a.sum += float64(r.PEnd-r.PStart) / 3600
			a.n++
		}
		if r.Policy == "reactive" {
			add(reactive)
		}
		if k := [2]int{r.ChainNodes, r.Window}; !seen[k] {
			seen[k] = true
			add(any)
		}
	}
	out := map[int]float64{}
	for n, a := range any {
		if ra := reactive[n]; ra != nil && ra.n > 0 {
			a = ra
		}
		out[n] = a.sum / float64(a.n)
	}
	return out
}
