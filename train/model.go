package train

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/mirage-hpc/mirage/train/xgboost"
)

// Kind is a model family.
type Kind uint8

const (
	// KindForest is XGBoost's random-forest mode.
	KindForest Kind = iota
	// KindXGBoost is boosted trees with early stopping.
	KindXGBoost
)

// String returns "forest" or "xgboost".
func (k Kind) String() string {
	if k == KindXGBoost {
		return "xgboost"
	}
	return "forest"
}

// ParseKind parses "forest" or "xgboost".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "forest":
		return KindForest, nil
	case "xgboost":
		return KindXGBoost, nil
	}
	return 0, fmt.Errorf("model %q: want forest or xgboost", s)
}

// Params are the training parameters.
type Params struct {
	Kind Kind `json:"-"`
	// Objective is "reg:squarederror" or "reg:pseudohubererror" for a
	// regression, "binary:logistic" for TargetInterrupt.
	Objective string  `json:"objective"`
	MaxDepth  int     `json:"max_depth"`
	Eta       float64 `json:"eta"`
	Subsample float64 `json:"subsample"`
	// ColsampleByNode is the share of features tried at each split.
	ColsampleByNode float64 `json:"colsample_bynode"`
	// NumParallelTree is the forest size (KindForest).
	NumParallelTree int `json:"num_parallel_tree"`
	// Rounds is the maximum number of boosting rounds (KindXGBoost; 1 for a forest).
	Rounds int `json:"rounds"`
	// EarlyStopping stops after this many rounds without improvement of
	// the validation RMSE (KindXGBoost).
	EarlyStopping int `json:"early_stopping_rounds"`
	// ValidShare is the share of the training windows (the latest) held
	// out for early stopping (KindXGBoost).
	ValidShare     float64 `json:"valid_share"`
	MinChildWeight float64 `json:"min_child_weight"`
	Seed           uint64  `json:"seed"`
	// Threads is nthread; 0 means libxgboost's default.
	Threads int `json:"nthread"`
	// HuberSlope is pseudo-Huber's delta in hours (reg:pseudohubererror
	// only; 0 means XGBoost's default, 1).
	HuberSlope float64 `json:"huber_slope,omitempty"`
	// Device is where to train, resolved to DeviceCPU or DeviceCUDA
	// (see ResolveDevice) before Fit.
	Device Device `json:"device"`
}

// Objectives by their short names.
const (
	ObjectiveSquared     = "reg:squarederror"
	ObjectivePseudoHuber = "reg:pseudohubererror"
	// ObjectiveLogistic is the classifier of TargetInterrupt and TargetCliff.
	ObjectiveLogistic = "binary:logistic"
)

// evalMetric returns the validation metric of early stopping for an
// objective: the log loss of a probability, the RMSE otherwise.
func evalMetric(objective string) string {
	if objective == ObjectiveLogistic {
		return "logloss"
	}
	return "rmse"
}

// ParseObjective maps "squared" or "pseudohuber" (or XGBoost's own name)
// to XGBoost's objective name.
func ParseObjective(s string) (string, error) {
	switch s {
	case "squared", ObjectiveSquared:
		return ObjectiveSquared, nil
	case "pseudohuber", ObjectivePseudoHuber:
		return ObjectivePseudoHuber, nil
	}
	return "", fmt.Errorf("objective %q: want squared or pseudohuber", s)
}

// DefaultParams returns the defaults of kind k.
func DefaultParams(k Kind) Params {
	if k == KindForest {
		return Params{Kind: k, Objective: "reg:squarederror", MaxDepth: 12, Eta: 1, Subsample: 0.632,
			ColsampleByNode: 0.33, NumParallelTree: 200, Rounds: 1, MinChildWeight: 1, Seed: 1}
	}
	return Params{Kind: k, Objective: "reg:squarederror", MaxDepth: 6, Eta: 0.05, Subsample: 0.8,
		ColsampleByNode: 0.8, NumParallelTree: 1, Rounds: 1000, EarlyStopping: 50, ValidShare: 0.2,
		MinChildWeight: 1, Seed: 1}
}

func (p Params) xgb() []xgboost.Param {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	lib, _ := xgboost.Version()
	ps := []xgboost.Param{{Key: "booster", Value: "gbtree"}}
	ps = append(ps, DeviceParams(p.Device, lib)...)
	ps = append(ps, []xgboost.Param{
		{Key: "objective", Value: p.Objective}, {Key: "max_depth", Value: strconv.Itoa(p.MaxDepth)},
		{Key: "eta", Value: f(p.Eta)}, {Key: "subsample", Value: f(p.Subsample)},
		{Key: "colsample_bynode", Value: f(p.ColsampleByNode)},
		{Key: "num_parallel_tree", Value: strconv.Itoa(max(1, p.NumParallelTree))},
		{Key: "min_child_weight", Value: f(p.MinChildWeight)},
		{Key: "seed", Value: strconv.FormatUint(p.Seed, 10)}, {Key: "eval_metric", Value: evalMetric(p.Objective)},
	}...)
	if p.Objective == ObjectivePseudoHuber && p.HuberSlope > 0 {
		ps = append(ps, xgboost.Param{Key: "huber_slope", Value: f(p.HuberSlope)})
	}
	if p.Threads > 0 {
		ps = append(ps, xgboost.Param{Key: "nthread", Value: strconv.Itoa(p.Threads)})
	}
	return ps
}

// Data is a column-major design matrix with the labels of a Target.
type Data struct {
	Names []string
	Cols  [][]float64 // Cols[f][i]
	Y     []float64   // the target: r or the wait in hours, or 0/1
	// W are the row weights (nil: 1 each).
	W []float64
}

// subset returns the rows idx as a row-major float32 matrix and labels.
func (d *Data) subset(idx []int) ([]float32, []float32) {
	nf := len(d.Cols)
	x := make([]float32, len(idx)*nf)
	y := make([]float32, len(idx))
	for r, i := range idx {
		for f := range nf {
			x[r*nf+f] = float32(d.Cols[f][i])
		}
		y[r] = float32(d.Y[i])
	}
	return x, y
}

func (d *Data) dmatrix(idx []int) (*xgboost.DMatrix, error) {
	x, y := d.subset(idx)
	m, err := xgboost.NewDMatrix(x, len(idx), len(d.Cols), xgboost.LayoutRowMajor)
	if err != nil {
		return nil, err
	}
	if err := m.SetLabels(y); err != nil {
		m.Close()
		return nil, err
	}
	if d.W != nil {
		w := make([]float32, len(idx))
		for r, i := range idx {
			w[r] = float32(d.W[i])
		}
		if err := m.SetWeights(w); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

// Fitted is a trained booster and what training chose.
type Fitted struct {
	Booster *xgboost.Booster
	// Rounds is the number of boosting rounds kept.
	Rounds int
}

// Fit trains on rows train. For KindXGBoost with valid non-empty, it
// stops early on valid's RMSE and keeps the best rounds; with valid empty
// it runs p.Rounds rounds.
func Fit(ctx context.Context, d *Data, train, valid []int, p Params) (*Fitted, error) {
	// libxgboost keeps its random engine per OS thread and reseeds it when
	// a booster is configured; keep every call of this fit on one thread so
	// the same seed gives the same trees (cgo calls may otherwise hop).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dt, err := d.dmatrix(train)
	if err != nil {
		return nil, err
	}
	defer dt.Close()
	cache := []*xgboost.DMatrix{dt}
	var dv *xgboost.DMatrix
	if p.Kind == KindXGBoost && len(valid) > 0 {
		if dv, err = d.dmatrix(valid); err != nil {
			return nil, err
		}
		defer dv.Close()
		cache = append(cache, dv)
	}
	b, err := xgboost.NewBooster(cache...)
	if err != nil {
		return nil, err
	}
	if err := b.SetParams(p.xgb()); err != nil {
		b.Close()
		return nil, err
	}
	rounds := 1
	if p.Kind == KindXGBoost {
		rounds = max(1, p.Rounds)
	}
	best, err := b.Boost(ctx, dt, dv, rounds, p.EarlyStopping, "valid-"+evalMetric(p.Objective))
	if err != nil {
		b.Close()
		return nil, err
	}
	if dv != nil {
		// Retrain to exactly the best round count so model.json holds no
		// trees past it (same seed, same data: the same first trees).
		b.Close()
		q := p
		q.Rounds, q.EarlyStopping = best, 0
		f, err := Fit(ctx, d, train, nil, q)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return &Fitted{Booster: b, Rounds: rounds}, nil
}

// Predict predicts rows idx with the fitted booster.
func (f *Fitted) Predict(d *Data, idx []int) ([]float32, error) {
	m, err := d.dmatrix(idx)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return f.Booster.Predict(m, 0)
}

// FeatureGain is one feature's importance.
type FeatureGain struct {
	Name string  `json:"name"`
	Gain float64 `json:"gain"`
}

// TopGain returns the n features with the highest mean gain.
func (f *Fitted) TopGain(names []string, n int) ([]FeatureGain, error) {
	sc, err := f.Booster.FeatureScore("gain")
	if err != nil {
		return nil, err
	}
	var out []FeatureGain
	for k, v := range sc {
		name := k
		if i, err := strconv.Atoi(strings.TrimPrefix(k, "f")); err == nil && i < len(names) {
			name = names[i]
		}
		out = append(out, FeatureGain{Name: name, Gain: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Gain != out[j].Gain {
			return out[i].Gain > out[j].Gain
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}
