package reports

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// Figure file stems of the per-model figures: the prefix, "-" and the
// model directory's base name.
const (
	CalibrationFigurePrefix = "calibration"
	CVFrontierFigurePrefix  = "cv-frontier"
)

// ModelDir is a model directory named by an evaluated policy (KIND:DIR,
// KIND one of forest, xgboost, slurm-estimate, dqn; a sweep variant
// KIND:DIR@K=V names it too): its operating point and, for a classifier
// (target interrupt or cliff), its cross-validated calibration.
type ModelDir struct {
	// Policy is the base policy name, KIND:DIR.
	Policy string `json:"policy"`
	Dir    string `json:"dir"`
	Kind   string `json:"kind"` // the manifest's kind
	Target string `json:"target,omitempty"`
	// OperatingPoint is the manifest's (nil: none, e.g. trained without
	// cross-validation).
	OperatingPoint *train.OperatingPoint `json:"operating_point,omitempty"`
	// CV is the manifest's cross-validation (or cv.json's); nil for DQN.
	CV *train.CVResult `json:"-"`
	// CalibrationFigure and FrontierFigure are the file stems of the
	// model's figures ("" when not drawn).
	CalibrationFigure string `json:"calibration_figure,omitempty"`
	FrontierFigure    string `json:"cv_frontier_figure,omitempty"`
	// modelSHA256 is the manifest's model_sha256 ("" for DQN), which a
	// predictions file names its model by.
	modelSHA256 string
}

// Classifier reports whether the model predicts a probability (target
// interrupt or cliff).
func (m *ModelDir) Classifier() bool { return train.Target(m.Target).Classification() }

// modelKinds are the policy kinds (KIND:DIR) whose DIR is a model
// directory with a manifest.
var modelKinds = []string{"forest", "xgboost", "slurm-estimate", "dqn"}

// LoadModelDir reads the manifest of the model directory dir, named by
// policy family (KIND:DIR): dqn.ReadManifest for kind dqn,
// train.ReadManifest and train.ReadCV for the others.
func LoadModelDir(policy, dir string) (ModelDir, error) {
	m := ModelDir{Policy: policy, Dir: dir}
	if evaluate.ParseName(policy).Kind == "dqn" {
		man, err := dqn.ReadManifest(dir)
		if err != nil {
			return m, err
		}
		m.Kind, m.OperatingPoint = man.Kind, man.OperatingPoint
		m.Target = string(train.TargetAdvantage)
		if op := man.OperatingPoint; op != nil && op.Target != "" {
			m.Target = string(op.Target)
		}
		return m, nil
	}
	man, err := train.ReadManifest(dir)
	if err != nil {
		return m, err
	}
	m.Kind, m.Target, m.OperatingPoint, m.modelSHA256 = man.Kind, man.Target, man.OperatingPoint, man.ModelSHA256
	if m.Target == "" || m.Target == "r_hours" {
		m.Target = string(train.TargetR)
	}
	m.CV, err = train.ReadCV(dir, man)
	return m, err
}

// loadModelDirs loads the model directory of every model family of the
// evaluation (dirs: family -> resolved directory, in families' order).
// Each model's figure stems are set (unique among taken, which they are
// added to). A directory without a manifest is an error, except for a
// DQN (its curve alone is drawn).
func loadModelDirs(families []string, dirs map[string]string, taken map[string]bool) ([]ModelDir, error) {
	var out []ModelDir
	for _, fam := range families {
		dir := dirs[fam]
		m, err := LoadModelDir(fam, dir)
		if errors.Is(err, fs.ErrNotExist) && evaluate.ParseName(fam).Kind == "dqn" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", fam, err)
		}
		name := slug(filepath.Base(filepath.Clean(dir)))
		if m.Classifier() && m.CV != nil && (m.CV.Calibration != nil || len(m.CV.CalibrationByChain) > 0) {
			m.CalibrationFigure = uniqueStem(CalibrationFigurePrefix+"-"+name, taken)
		}
		if op := m.OperatingPoint; op != nil && len(op.Frontier) > 0 {
			m.FrontierFigure = uniqueStem(CVFrontierFigurePrefix+"-"+name, taken)
		}
		out = append(out, m)
	}
	return out, nil
}

// PointRow is one row of the operating-points table: a model's rule
// parameter for one chain size, its replay on the training windows
// (out-of-fold predictions of time-blocked CV) and its outcome on the
// validation windows of the evaluation.
type PointRow struct {
	Policy  string  `json:"policy"`
	Chain   string  `json:"chain_nodes"` // decimal node count
	Target  string  `json:"target"`
	Param   string  `json:"param"`
	BudgetH float64 `json:"overlap_budget_h"`
	// Default is set when the operating point has no choice of its own
	// for the chain size: Train is then its default (over all sizes).
	Default bool             `json:"default,omitempty"`
	Train   train.ChainPoint `json:"train"`
	// ValidPolicy is the evaluated policy the validation outcome is of:
	// Policy, or the sweep variant Policy@K=V at the chosen value; empty
	// when neither was evaluated at this chain size (Valid is then nil).
	ValidPolicy string            `json:"valid_policy,omitempty"`
	Valid       *evaluate.Summary `json:"valid,omitempty"`
}

// PointRows returns the operating-points table: for each model with an
// operating point, in order, one row per chain size (ascending) that the
// operating point chose for or the evaluation has the policy at.
// order is the evaluation's policies (sweep variants are looked up in
// it when the base policy was not evaluated).
func PointRows(models []ModelDir, m evaluate.Metrics, order []string) []PointRow {
	var out []PointRow
	for _, md := range models {
		op := md.OperatingPoint
		if op == nil {
			continue
		}
		var variants []string
		for _, p := range order {
			if n := evaluate.ParseName(p); n.Swept && n.Family == md.Policy {
				variants = append(variants, p)
			}
		}
		var sizes []int
		add := func(k string) {
			if n, err := strconv.Atoi(k); err == nil && !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
		for k := range op.ByChain {
			add(k)
		}
		for _, p := range append([]string{md.Policy}, variants...) {
			for k := range m.Policies[p].ByChain {
				add(k)
			}
		}
		slices.Sort(sizes)
		target := string(op.Target)
		if target == "" {
			target = md.Target
		}
		for _, n := range sizes {
			k := strconv.Itoa(n)
			r := PointRow{Policy: md.Policy, Chain: k, Target: target, Param: op.Param, BudgetH: op.BudgetH}
			var ok bool
			if r.Train, ok = op.ByChain[k]; !ok {
				r.Train, r.Default = op.Default, true
			}
			if s, ok := m.Policies[md.Policy].ByChain[k]; ok {
				r.ValidPolicy, r.Valid = md.Policy, &s.Summary
			} else {
				for _, p := range variants {
					v := evaluate.ParseName(p).Value
					if s, ok := m.Policies[p].ByChain[k]; ok && sameValue(v, r.Train.Value) {
						r.ValidPolicy, r.Valid = p, &s.Summary
						break
					}
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// sameValue reports whether a sweep variant's parameter a is the chosen
// value b (equal to 9 significant digits).
func sameValue(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b))
}

// paramValue formats a rule parameter; ±1e300 and beyond (how ±Inf is
// written) are ±∞.
func paramValue(v float64) string {
	switch {
	case v >= 1e300:
		return "+∞"
	case v <= -1e300:
		return "−∞"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// overBudget marks a chosen point that is not within the budget.
func overBudget(c train.ChainPoint) string {
	if c.WithinBudget {
		return ""
	}
	return " (over budget)"
}

// chainKeys returns the keys of a by-chain-size map, ascending by size.
func chainKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA != nil || errB != nil {
			return cmp.Compare(a, b)
		}
		return cmp.Compare(x, y)
	})
	return keys
}

// CalibrationFigure draws m's reliability diagram from its cross-
// validation: per chain size, the observed frequency of interruption
// against the mean predicted probability in each bin of out-of-fold
// predictions (all chain sizes together when there is no per-size
// calibration), and the diagonal of perfect calibration.
func CalibrationFigure(m *ModelDir) Figure {
	name := m.CalibrationFigure
	if name == "" {
		name = CalibrationFigurePrefix
	}
	f := Figure{Name: name, Title: "Calibration: " + m.Policy,
		Panels: []Panel{{XLabel: "mean predicted probability", YLabel: "observed frequency", XMin: ptr(0), XMax: ptr(1), YMin: ptr(0), YMax: ptr(1)}}}
	f.Series = append(f.Series, Series{Label: "perfectly calibrated", Kind: "curve", X: []float64{0, 1}, Y: []float64{0, 1}})
	type curve struct {
		label string
		c     train.Calibration
	}
	var curves []curve
	if m.CV != nil {
		chains := make([]int, 0, len(m.CV.CalibrationByChain))
		for n := range m.CV.CalibrationByChain {
			chains = append(chains, int(n))
		}
		slices.Sort(chains)
		for _, n := range chains {
			curves = append(curves, curve{fmt.Sprintf("%d node(s)", n), m.CV.CalibrationByChain[int32(n)]})
		}
		if len(curves) == 0 && m.CV.Calibration != nil {
			curves = append(curves, curve{"all chain sizes", *m.CV.Calibration})
		}
	}
	var parts []string
	for k, c := range curves {
		s := Series{Label: c.label, Kind: "line", Style: 1 + k}
		for _, b := range c.c.Reliability {
			if plottable(b.MeanPredicted) && plottable(b.Observed) {
				s.X, s.Y = append(s.X, round(b.MeanPredicted)), append(s.Y, round(b.Observed))
			}
		}
		f.Series = append(f.Series, s)
		parts = append(parts, fmt.Sprintf("%s: Brier %.4f (%.4f always predicting the base rate %.3f), log loss %.4f, %s",
			c.label, c.c.Brier, c.c.BrierBaseRate, c.c.BaseRate, c.c.LogLoss, plural(c.c.Rows, "row")))
	}
	what := "P(r > 0)"
	if m.Target == string(train.TargetCliff) {
		what = "P(r > 0 if submitted at the next decision)"
	}
	f.Caption = "Reliability of the predicted " + what + " on out-of-fold predictions of time-blocked cross-validation " +
		"on the training windows (bins of width " + strconv.FormatFloat(1.0/train.ReliabilityBins, 'g', -1, 64) +
		", empty bins left out); the diagonal is perfect calibration."
	if len(parts) > 0 {
		f.Caption += " " + strings.Join(parts, "; ") + "."
	}
	return f
}

// frontierMaxH is the most mean overlap CVFrontierFigure draws, hours:
// four times the budget, at least 4 h.
func frontierMaxH(budgetH float64) float64 {
	if !plottable(budgetH) {
		return 4
	}
	return max(4, 4*budgetH)
}

// CVFrontierFigure draws m's operating-point frontier from training CV:
// per chain size (a panel each when there are several), the replayed
// rule parameters' mean overlap against interruption reduction, the
// chosen point marked and the overlap budget as a vertical line.
func CVFrontierFigure(m *ModelDir) Figure {
	name := m.FrontierFigure
	if name == "" {
		name = CVFrontierFigurePrefix
	}
	f := Figure{Name: name, Title: "Training-CV frontier: " + m.Policy}
	op := m.OperatingPoint
	if op == nil {
		return f
	}
	keys := chainKeys(op.Frontier)
	for _, k := range keys {
		pn := Panel{XLabel: "mean overlap (h)", YLabel: "interruption reduction"}
		if len(keys) > 1 {
			pn.Title = k + " node(s)"
		}
		f.Panels = append(f.Panels, pn)
	}
	if len(f.Panels) == 0 {
		f.Panels = []Panel{{XLabel: "mean overlap (h)", YLabel: "interruption reduction"}}
	}
	short := strings.TrimSuffix(op.Param, "_h")
	for i, k := range keys {
		panel := 0
		if len(keys) > 1 {
			panel = i
		}
		s := Series{Label: "frontier", Kind: "line", Panel: panel, Style: 4}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range op.Frontier[k] {
			if p.MeanOverlapH > frontierMaxH(op.BudgetH) {
				break // ascending in overlap; beyond the region a budget is chosen in
			}
			if plottable(p.MeanOverlapH) && plottable(p.InterruptionReduction) {
				s.X, s.Y = append(s.X, round(p.MeanOverlapH)), append(s.Y, round(p.InterruptionReduction))
				lo, hi = min(lo, p.InterruptionReduction), max(hi, p.InterruptionReduction)
			}
		}
		f.Series = append(f.Series, s)
		c, ok := op.ByChain[k]
		if !ok {
			c = op.Default
		}
		if plottable(c.MeanOverlapH) && plottable(c.InterruptionReduction) {
			f.Series = append(f.Series, Series{Label: "chosen", Kind: "points", Panel: panel, Highlight: true, Style: 5,
				X: []float64{round(c.MeanOverlapH)}, Y: []float64{round(c.InterruptionReduction)},
				Names: []string{short + "=" + paramValue(c.Value) + overBudget(c)}})
			lo, hi = min(lo, c.InterruptionReduction), max(hi, c.InterruptionReduction)
		}
		if plottable(op.BudgetH) && lo <= hi {
			f.Series = append(f.Series, Series{Label: "overlap budget", Kind: "vline", Panel: panel, Style: 5,
				X: []float64{round(op.BudgetH)}, Y: []float64{0}})
		}
	}
	f.Caption = fmt.Sprintf("Pareto frontier of the rule parameter %s (%s) replayed on the training windows "+
		"(%s): the greatest interruption reduction at each mean overlap; the chosen point, the greatest reduction "+
		"within the overlap budget of %s h (vertical line; over budget: none met it and the least overlap was chosen), is marked; "+
		"drawn up to %s h of mean overlap", op.Param, op.Rule, readableSeconds(op.Source),
		strconv.FormatFloat(op.BudgetH, 'g', -1, 64), strconv.FormatFloat(frontierMaxH(op.BudgetH), 'g', -1, 64))
	if len(keys) > 1 {
		f.Caption += "; one panel per chain size"
	}
	f.Caption += "."
	return f
}

// htmlCalRow is one row of a model's calibration table.
type htmlCalRow struct {
	Name        string
	TestWindows string
	C           train.Calibration
}

// htmlCalibration is one classifier model's calibration table.
type htmlCalibration struct {
	Policy string
	Rows   []htmlCalRow
}

// calibrationTable returns m's calibration table: per chain size, over
// all out-of-fold predictions, then per fold.
func calibrationTable(m *ModelDir) htmlCalibration {
	t := htmlCalibration{Policy: m.Policy}
	if m.CV == nil {
		return t
	}
	chains := make([]int, 0, len(m.CV.CalibrationByChain))
	for n := range m.CV.CalibrationByChain {
		chains = append(chains, int(n))
	}
	slices.Sort(chains)
	for _, n := range chains {
		t.Rows = append(t.Rows, htmlCalRow{Name: fmt.Sprintf("%d node(s), out of fold", n), TestWindows: "-", C: m.CV.CalibrationByChain[int32(n)]})
	}
	if m.CV.Calibration != nil {
		t.Rows = append(t.Rows, htmlCalRow{Name: "all chain sizes, out of fold", TestWindows: "-", C: *m.CV.Calibration})
	}
	for _, f := range m.CV.Folds {
		if f.Calibration != nil {
			t.Rows = append(t.Rows, htmlCalRow{Name: fmt.Sprintf("fold %d", f.Fold), TestWindows: strconv.Itoa(f.TestWindows), C: *f.Calibration})
		}
	}
	return t
}
