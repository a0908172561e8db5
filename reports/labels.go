package reports

import (
	"path"
	"slices"
	"strconv"

	"github.com/mirage-hpc/mirage/evaluate"
)

// KeyItem is one row of the page's key to policy labels.
type KeyItem struct {
	Label  string `json:"label"`
	Family string `json:"family"` // the full policy family name
	Dir    string `json:"dir,omitempty"`
	// What says what the policy does.
	What string `json:"what"`
}

// Labels gives every policy family a short, unique label for figures and
// tables and a stable style index (so a policy keeps its colour and
// dashes across figures).
type Labels struct {
	label map[string]string // family -> short label
	style map[string]int    // family -> style
	Key   []KeyItem
}

// builtins describe the policies that name no model directory.
var builtins = map[string]string{
	"reactive":          "submit Q when P ends (the baseline reductions are measured against)",
	"immediate":         "submit Q at once",
	"avg":               "submit at P's start + the average run time",
	"slurm-estimate":    "submit when Slurm's time-limit estimate of P's end is near",
	"slurm-estimate-rt": "the same with run-time estimates",
	"oracle":            "hindsight: zero interruption with the least overlap",
	"oracle-cost":       "hindsight: least interruption + λ·overlap; swept over λ, the frontier no policy on this grid can pass",
}

// kindWhat describe model policies by kind.
var kindWhat = map[string]string{
	"forest":           "random forest",
	"xgboost":          "XGBoost",
	"dqn":              "deep Q-network",
	"slurm-estimate":   "Slurm estimate with a trained margin",
	"forecast":         "start-time forecast",
	"runtime-estimate": "run-time model",
}

// NewLabels assigns labels and styles to the families of policies, in
// order: a built-in policy keeps its name ("slurm-estimate" becomes
// "slurm-est"); a model KIND:DIR becomes DIR's base name, or KIND:base
// when models of another kind share that base name (runtime-estimate:fc
// and forecast:fc read the same directory), with "-2", … on a remaining
// clash; the oracles are styled black.
func NewLabels(policies []string) *Labels {
	l := &Labels{label: map[string]string{}, style: map[string]int{}}
	kinds := map[string][]string{} // a model directory's base name → its kinds
	for _, p := range policies {
		if n := evaluate.ParseName(p); n.IsModel() && !slices.Contains(kinds[path.Base(n.Dir)], n.Kind) {
			kinds[path.Base(n.Dir)] = append(kinds[path.Base(n.Dir)], n.Kind)
		}
	}
	used := map[string]bool{}
	next := 1 // style 0 (black) is the oracles'
	for _, p := range policies {
		n := evaluate.ParseName(p)
		if _, ok := l.label[n.Family]; ok {
			continue
		}
		short, what := n.Family, builtins[n.Family]
		switch {
		case n.IsModel():
			short = path.Base(n.Dir)
			if len(kinds[short]) > 1 {
				short = n.Kind + ":" + short
			}
			what = kindWhat[n.Kind]
			if what == "" {
				what = n.Kind
			}
			what += " model"
		case n.Family == "slurm-estimate":
			short = "slurm-est"
		}
		base := short
		for k := 2; used[short]; k++ {
			short = base + "-" + strconv.Itoa(k)
		}
		used[short] = true
		l.label[n.Family] = short
		switch {
		case n.Family == evaluate.OracleName:
			l.style[n.Family] = 0
		case n.IsOracle():
			l.style[n.Family] = len(palette) // black again, another glyph and dashes
		default:
			if next%len(palette) == 0 {
				next++ // black is the oracles'
			}
			l.style[n.Family] = next
			next++
		}
		l.Key = append(l.Key, KeyItem{Label: short, Family: n.Family, Dir: n.Dir, What: what})
	}
	return l
}

// Label returns policy's short label: its family's, with a sweep suffix
// kept ("forest@θ=0.5").
func (l *Labels) Label(policy string) string {
	n := evaluate.ParseName(policy)
	s, ok := l.label[n.Family]
	if !ok {
		s = n.Family
	}
	if n.Swept {
		s += "@" + n.Key + "=" + strconv.FormatFloat(n.Value, 'g', -1, 64)
	}
	return s
}

// Style returns policy's family's style index.
func (l *Labels) Style(policy string) int { return l.style[evaluate.ParseName(policy).Family] }
