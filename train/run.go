package train

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// Options configure Run.
type Options struct {
	Params Params
	// Target is what the model predicts; "" means TargetR.
	Target Target
	// StopHorizonSec is TargetStop's horizon (seconds): the label is the
	// extra interruption of submitting at the window's last decision
	// within StopHorizonSec instead of now, per hour between them (the
	// next decision when none is that close); 0 means the next decision.
	// Other targets ignore it.
	StopHorizonSec int64
	// StopLabel is TargetStop's label (StopLabelRate or StopLabelPeak);
	// "" means StopLabelRate. Other targets ignore it.
	StopLabel StopLabel
	// OverlapBudgetH is the overlap budget of the operating point (hours
	// of mean overlap per window); 0 means DefaultOverlapBudgetH. The
	// operating point needs K >= 2.
	OverlapBudgetH float64
	// Unweighted ignores the samples' row weights.
	Unweighted bool
	// BudgetEveryBlock makes the overlap budget hold in each of the K
	// time blocks of the training period, not only on average (robust to
	// drift between months; K from the CV, or 5 for RunEstimate).
	BudgetEveryBlock bool
	// BudgetRule is the statistic of the CV overlap that must be within
	// the budget (BudgetMean, BudgetEveryBlock, BudgetNested); "" means
	// DefaultBudgetRule, or BudgetEveryBlock with BudgetEveryBlock set.
	BudgetRule BudgetRule
	// K is the number of CV folds; 0 or 1 skips cross-validation.
	K int
	// GapSec is the fold gap; 0 means the window span from the metadata.
	GapSec int64
	// Version is mirage's version, recorded in the manifest.
	Version string
	// Progress, when set, is called after each fold.
	Progress func(fold, k int)
}

// NewData converts samples into the design matrix with r in hours and
// the samples' weights.
func NewData(s *features.Samples) *Data {
	y := make([]float64, s.Len())
	for i, r := range s.LabelRSec {
		y[i] = float64(r) / 3600
	}
	return &Data{Names: s.Names, Cols: s.Features, Y: y, W: s.Weight}
}

// ruleScores returns every row's rule score for target t from the
// predictions pred (nil for TargetEstimate).
func ruleScores(s *features.Samples, t Target, pred []float32) ([]float64, error) {
	col := func(name string) ([]float64, error) {
		for i, n := range s.Names {
			if n == name {
				return s.Features[i], nil
			}
		}
		return nil, fmt.Errorf("train: %w: no feature %s (samples of feature schema %d?)", ErrSamples, name, features.FeatureSchemaVersion)
	}
	var rem, est []float64
	var err error
	switch t {
	case TargetWait, TargetFixedLead:
		rem, err = col("p_remaining_sec")
	case TargetEstimate:
		est, err = col("q_est_start_minus_p_end_sec")
	case TargetEstimateRT:
		est, err = col("q_est_rt_start_minus_p_end_sec")
	}
	if err != nil {
		return nil, err
	}
	out := make([]float64, s.Len())
	for i := range out {
		var p float64
		if pred != nil {
			p = float64(pred[i])
		}
		var r, e float64
		if rem != nil {
			r = rem[i]
		}
		if est != nil {
			e = est[i]
		}
		out[i] = RuleScore(t, p, r, e)
	}
	return out, nil
}

// checkRuntimeMeta returns an error wrapping ErrSamples when the samples
// have the features.ModelEstimateName column but their metadata names no
// run-time model (or the other way round): a model trained on them could
// not say which run-time model it needs.
func checkRuntimeMeta(s *features.Samples, meta SamplesMeta) error {
	has := slices.Contains(s.Names, features.ModelEstimateName)
	named := meta.RuntimeModel != "" && meta.RuntimeSHA256 != ""
	if has != named {
		return fmt.Errorf("train: %w: column %s present %v, but run-time model in the metadata %q (sha256 %q)",
			ErrSamples, features.ModelEstimateName, has, meta.RuntimeModel, meta.RuntimeSHA256)
	}
	return nil
}

// Run cross-validates (when opts.K >= 2), fits the final model on every
// row and writes the artifact to dir. The final boosted model uses the
// CV's median round count when early stopping chose one; without CV it
// stops early on the latest training windows (earlyStopRounds) when
// p.EarlyStopping and p.ValidShare are set, and runs p.Rounds otherwise.
func Run(ctx context.Context, s *features.Samples, meta SamplesMeta, dir string, opts Options) (*Manifest, error) {
	if s.Len() == 0 {
		return nil, fmt.Errorf("train: no samples")
	}
	if len(s.LabelRSec) != s.Len() {
		return nil, fmt.Errorf("train: %w: no %s column", ErrSamples, features.ColLabelR)
	}
	if err := checkRuntimeMeta(s, meta); err != nil {
		return nil, err
	}
	target := opts.Target
	if target == "" {
		target = TargetR
	}
	d := NewData(s)
	var err error
	if d.Y, err = target.labelsStop(s, opts.StopHorizonSec, opts.StopLabel); err != nil {
		return nil, err
	}
	if opts.Unweighted {
		d.W = nil
	}
	p := opts.Params
	p.Objective = target.Objective(p.Objective)
	gap := opts.GapSec
	if gap <= 0 {
		gap = int64(meta.WindowSpan() / time.Second)
	}
	var cv *CVResult
	var op *OperatingPoint
	if opts.K >= 2 {
		var err error
		cv, err = CrossValidate(ctx, d, s.WindowID, s.WindowStart, s.ChainNodes, opts.K, gap, p, opts.Progress)
		if err != nil {
			return nil, err
		}
		scores, err := ruleScores(s, target, cv.OOF)
		if err != nil {
			return nil, err
		}
		units := withBlocks(Units(s), s, opts.K)
		src := fmt.Sprintf("out-of-fold predictions of %d time-blocked folds (gap %d s) replayed on the %d training windows x chain sizes",
			opts.K, gap, len(units))
		if op, err = ChooseOperatingPointRule(target, scores, s.LabelRSec, units, budget(opts.OverlapBudgetH), opts.budgetRule(), src); err != nil {
			return nil, err
		}
	}
	q := p
	if p.Kind == KindXGBoost {
		q.EarlyStopping = 0
		switch {
		case cv != nil:
			q.Rounds = cv.Rounds
		case p.EarlyStopping > 0 && p.ValidShare > 0:
			rounds, err := earlyStopRounds(ctx, d, s.WindowStart, p)
			if err != nil {
				return nil, err
			}
			q.Rounds = rounds
		}
	}
	all := make([]int, s.Len())
	for i := range all {
		all[i] = i
	}
	fit, err := Fit(ctx, d, all, nil, q)
	if err != nil {
		return nil, err
	}
	defer fit.Booster.Close()
	model, err := fit.Booster.Save(xgboost.FormatJSON)
	if err != nil {
		return nil, err
	}
	m := &Manifest{
		Kind: p.Kind.String(), Target: string(target), OperatingPoint: op, Weighted: d.W != nil, Features: meta.Features, FeatureSchemaVersion: meta.SchemaVersion,
		Rows: s.Len(), Protocol: meta.Protocol, TraceDigest: meta.TraceDigest, SimConfig: meta.SimConfig,
		Params: p, Rounds: fit.Rounds, CV: cv, Seed: p.Seed, Versions: versions(opts.Version), StopHorizonSec: stopHorizon(target, opts.StopHorizonSec), StopLabel: stopLabelOf(target, opts.StopLabel),
		RuntimeModel: meta.RuntimeModel, RuntimeModelSHA256: meta.RuntimeSHA256,
	}
	describe(m, s)
	if err := WriteArtifact(dir, model, m); err != nil {
		return nil, err
	}
	return m, nil
}

// earlyStopRounds returns the round count for a final model trained
// without cross-validation: boosting on all but the latest p.ValidShare of
// the rows (by window start), stopping after p.EarlyStopping rounds
// without improvement on those latest rows, as each CV fold does. With too
// few windows to hold any out it returns p.Rounds.
func earlyStopRounds(ctx context.Context, d *Data, windowStart []int64, p Params) (int, error) {
	all := make([]int, len(windowStart))
	for i := range all {
		all[i] = i
	}
	tr, va := splitValid(all, windowStart, p)
	if len(va) == 0 {
		return p.Rounds, nil
	}
	fit, err := Fit(ctx, d, tr, va, p)
	if err != nil {
		return 0, err
	}
	fit.Booster.Close()
	return fit.Rounds, nil
}

// withBlocks sets each unit's time block: its window's among k
// (TimeBlocks, the CV folds' test blocks).
func withBlocks(us []Unit, s *features.Samples, k int) []Unit {
	blocks := TimeBlocks(s.WindowID, s.WindowStart, k)
	for i := range us {
		us[i].Block = blocks[s.WindowID[us[i].Rows[0]]]
	}
	return us
}

// budgetRule returns the rule of o.BudgetRule and o.BudgetEveryBlock.
func (o Options) budgetRule() BudgetRule {
	switch {
	case o.BudgetRule != "":
		return o.BudgetRule
	case o.BudgetEveryBlock:
		return BudgetEveryBlock
	}
	return DefaultBudgetRule
}

func budget(h float64) float64 {
	if h <= 0 {
		return DefaultOverlapBudgetH
	}
	return h
}

// RunEstimate chooses the margin of the scheduler's own estimate
// (TargetEstimate: submit when squeue --start's estimate of Q ≥ P's
// expected end − margin; opts.Target TargetEstimateRT: the same estimate
// with predicted run times) on the samples' windows, which must be
// training windows, and writes a model directory with manifest.json
// only. The rule learns nothing else, so every window is replayed
// directly.
func RunEstimate(s *features.Samples, meta SamplesMeta, dir string, opts Options) (*Manifest, error) {
	t := opts.Target
	switch t {
	case "":
		t = TargetEstimate
	case TargetEstimate, TargetEstimateRT, TargetFixedLead:
	default:
		return nil, fmt.Errorf("train: RunEstimate: target %q is not an estimate", t)
	}
	if s.Len() == 0 {
		return nil, fmt.Errorf("train: no samples")
	}
	if len(s.LabelRSec) != s.Len() {
		return nil, fmt.Errorf("train: %w: no %s column", ErrSamples, features.ColLabelR)
	}
	scores, err := ruleScores(s, t, nil)
	if err != nil {
		return nil, err
	}
	k := opts.K
	if k < 2 {
		k = 5
	}
	units := withBlocks(Units(s), s, k)
	what := "the scheduler's estimate"
	if t == TargetFixedLead {
		what = "the fixed lead"
	}
	op, err := ChooseOperatingPointRule(t, scores, s.LabelRSec, units, budget(opts.OverlapBudgetH), opts.budgetRule(),
		fmt.Sprintf("%s replayed on the %d training windows x chain sizes", what, len(units)))
	if err != nil {
		return nil, err
	}
	m := &Manifest{Kind: KindEstimate, Target: string(t), OperatingPoint: op, Features: meta.Features,
		FeatureSchemaVersion: meta.SchemaVersion, Rows: s.Len(), Protocol: meta.Protocol, TraceDigest: meta.TraceDigest,
		SimConfig: meta.SimConfig, Versions: versions(opts.Version)}
	describe(m, s)
	if err := WriteArtifact(dir, nil, m); err != nil {
		return nil, err
	}
	return m, nil
}

// describe fills the manifest's windows, chain sizes and time range.
func describe(m *Manifest, s *features.Samples) {
	wins := map[int32]bool{}
	for _, w := range s.WindowID {
		wins[w] = true
	}
	m.Windows = len(wins)
	for _, c := range s.ChainNodes {
		if !slices.Contains(m.ChainNodes, c) {
			m.ChainNodes = append(m.ChainNodes, c)
		}
	}
	m.TimeRange = [2]int64{slices.Min(s.WindowStart), slices.Max(s.WindowStart)}
}

func versions(mirage string) map[string]string {
	v := map[string]string{"mirage": mirage}
	if lv, err := xgboost.Version(); err == nil {
		v["libxgboost"] = lv.String()
	}
	return v
}

// stopHorizon is the manifest's record of opts.StopHorizonSec: only for
// TargetStop.
func stopHorizon(t Target, sec int64) int64 {
	if t != TargetStop {
		return 0
	}
	return max(sec, 0)
}

// stopLabelOf is the manifest's record of opts.StopLabel: only for
// TargetStop with a label other than the default (old manifests stay
// byte-identical).
func stopLabelOf(t Target, l StopLabel) StopLabel {
	if t != TargetStop || l == StopLabelRate {
		return ""
	}
	return l
}
