package train

import (
	"context"
	"math"
	"slices"
)

// Metrics are regression metrics of r in hours.
type Metrics struct {
	Rows  int     `json:"rows"`
	MAEH  float64 `json:"mae_h"`
	RMSEH float64 `json:"rmse_h"`
	// Within1H is the share of rows with |pred - r| <= 1 h.
	Within1H float64 `json:"within_1h"`
	// SignAccuracy is the share of rows whose predicted and true r have
	// the same sign (r > 0 interruption vs r <= 0 overlap).
	SignAccuracy float64 `json:"sign_accuracy"`
}

// Score computes Metrics of pred against y.
func Score(y []float64, pred []float32) Metrics {
	m := Metrics{Rows: len(y)}
	if len(y) == 0 {
		return m
	}
	var ae, se float64
	var in, sign int
	for i, t := range y {
		e := float64(pred[i]) - t
		ae += math.Abs(e)
		se += e * e
		if math.Abs(e) <= 1 {
			in++
		}
		if (t > 0) == (pred[i] > 0) {
			sign++
		}
	}
	n := float64(len(y))
	m.MAEH, m.RMSEH = ae/n, math.Sqrt(se/n)
	m.Within1H, m.SignAccuracy = float64(in)/n, float64(sign)/n
	return m
}

// FoldResult is one fold's outcome.
type FoldResult struct {
	Fold        int               `json:"fold"`
	TrainRows   int               `json:"train_rows"`
	TestWindows int               `json:"test_windows"`
	Rounds      int               `json:"rounds"`
	Metrics                       // test rows (regressions)
	ByChain     map[int32]Metrics `json:"by_chain_nodes,omitempty"`
	// Calibration is the test rows' calibration (TargetInterrupt, TargetCliff).
	Calibration *Calibration  `json:"calibration,omitempty"`
	TopFeatures []FeatureGain `json:"top_features"`
}

// CVResult is cv.json.
type CVResult struct {
	Model   string            `json:"model"`
	K       int               `json:"k"`
	GapSec  int64             `json:"gap_sec"`
	Folds   []FoldResult      `json:"folds"`
	Overall Metrics           `json:"overall"`
	ByChain map[int32]Metrics `json:"by_chain_nodes,omitempty"`
	// Calibration is over every out-of-fold prediction, and
	// CalibrationByChain per chain size (TargetInterrupt, TargetCliff).
	Calibration        *Calibration          `json:"calibration,omitempty"`
	CalibrationByChain map[int32]Calibration `json:"calibration_by_chain_nodes,omitempty"`
	Rounds             int                   `json:"median_rounds"`
	// OOF is every row's out-of-fold prediction (each row is in exactly
	// one test block), for choosing the operating point.
	OOF []float32 `json:"-"`
}

// CrossValidate runs blocked k-fold cross-validation with gap gapSec.
// chain gives each row's chain size for per-size metrics.
func CrossValidate(ctx context.Context, d *Data, windowID []int32, windowStart []int64, chain []int32,
	k int, gapSec int64, p Params, progress func(fold, k int)) (*CVResult, error) {
	folds, err := BlockedFolds(windowID, windowStart, k, gapSec)
	if err != nil {
		return nil, err
	}
	res := &CVResult{Model: p.Kind.String(), K: k, GapSec: gapSec, OOF: make([]float32, len(d.Y))}
	classify := p.Objective == ObjectiveLogistic
	allY := make([]float64, 0, len(d.Y))
	allP := make([]float32, 0, len(d.Y))
	allC := make([]int32, 0, len(d.Y))
	var rounds []int
	for i, f := range folds {
		tr, va := splitValid(f.Train, windowStart, p)
		fit, err := Fit(ctx, d, tr, va, p)
		if err != nil {
			return nil, err
		}
		pred, err := fit.Predict(d, f.Test)
		if err != nil {
			fit.Booster.Close()
			return nil, err
		}
		top, err := fit.TopGain(d.Names, 10)
		fit.Booster.Close()
		if err != nil {
			return nil, err
		}
		y := make([]float64, len(f.Test))
		c := make([]int32, len(f.Test))
		for j, r := range f.Test {
			y[j], c[j] = d.Y[r], chain[r]
		}
		for j, r := range f.Test {
			res.OOF[r] = pred[j]
		}
		fr := FoldResult{Fold: i, TrainRows: len(tr), TestWindows: len(f.TestWindows), Rounds: fit.Rounds, TopFeatures: top}
		if classify {
			cal := Calibrate(y, pred)
			fr.Metrics.Rows, fr.Calibration = len(y), &cal
		} else {
			fr.Metrics, fr.ByChain = Score(y, pred), byChain(y, pred, c)
		}
		res.Folds = append(res.Folds, fr)
		allY, allP, allC = append(allY, y...), append(allP, pred...), append(allC, c...)
		rounds = append(rounds, fit.Rounds)
		if progress != nil {
			progress(i+1, k)
		}
	}
	if classify {
		cal := Calibrate(allY, allP)
		res.Overall.Rows, res.Calibration = len(allY), &cal
		res.CalibrationByChain = map[int32]Calibration{}
		for n, idx := range groupByChain(allC) {
			yy := make([]float64, len(idx))
			pp := make([]float32, len(idx))
			for j, i := range idx {
				yy[j], pp[j] = allY[i], allP[i]
			}
			res.CalibrationByChain[n] = Calibrate(yy, pp)
		}
	} else {
		res.Overall = Score(allY, allP)
		res.ByChain = byChain(allY, allP, allC)
	}
	slices.Sort(rounds)
	res.Rounds = rounds[len(rounds)/2]
	return res, nil
}

// splitValid holds out the latest ValidShare of the training rows (by
// window start) for early stopping, for KindXGBoost.
func splitValid(train []int, windowStart []int64, p Params) (tr, va []int) {
	if p.Kind != KindXGBoost || p.ValidShare <= 0 {
		return train, nil
	}
	starts := make([]int64, len(train))
	for i, r := range train {
		starts[i] = windowStart[r]
	}
	slices.Sort(starts)
	cut := starts[int(float64(len(starts))*(1-p.ValidShare))]
	for _, r := range train {
		if windowStart[r] >= cut {
			va = append(va, r)
		} else {
			tr = append(tr, r)
		}
	}
	if len(tr) == 0 || len(va) == 0 {
		return train, nil
	}
	return tr, va
}

func groupByChain(c []int32) map[int32][]int {
	groups := map[int32][]int{}
	for i, n := range c {
		groups[n] = append(groups[n], i)
	}
	return groups
}

func byChain(y []float64, p []float32, c []int32) map[int32]Metrics {
	out := map[int32]Metrics{}
	for n, idx := range groupByChain(c) {
		yy := make([]float64, len(idx))
		pp := make([]float32, len(idx))
		for j, i := range idx {
			yy[j], pp[j] = y[i], p[i]
		}
		out[n] = Score(yy, pp)
	}
	return out
}
