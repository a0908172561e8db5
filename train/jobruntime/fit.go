package jobruntime

import (
	"context"
	"fmt"
	"runtime"
	"strconv"

	"github.com/mirage-hpc/mirage/train/xgboost"
)

// Approach is how the distribution over ratio bins is learned.
type Approach uint8

const (
	// ApproachSoftprob is one multi:softprob booster over the bins.
	ApproachSoftprob Approach = iota
	// ApproachHeads is one binary:logistic booster per inner bin edge e,
	// P(ratio < e), made monotone by an isotonic fit.
	ApproachHeads
)

// Approaches lists every Approach in order.
var Approaches = []Approach{ApproachSoftprob, ApproachHeads}

// String returns "softprob" or "heads".
func (a Approach) String() string {
	if a == ApproachHeads {
		return "heads"
	}
	return "softprob"
}

// ParseApproach parses "softprob" or "heads".
func ParseApproach(s string) (Approach, error) {
	switch s {
	case "softprob":
		return ApproachSoftprob, nil
	case "heads":
		return ApproachHeads, nil
	}
	return 0, fmt.Errorf("%w: approach %q: want softprob or heads", ErrOptions, s)
}

// Params are the boosting parameters of both approaches.
type Params struct {
	MaxDepth int `json:"max_depth"`
	// Eta is the learning rate.
	Eta       float64 `json:"eta"`
	Subsample float64 `json:"subsample"`
	// ColsampleByNode is the share of features tried at each split.
	ColsampleByNode float64 `json:"colsample_bynode"`
	MinChildWeight  float64 `json:"min_child_weight"`
	// Rounds is the most boosting rounds of a booster.
	Rounds int `json:"rounds"`
	// EarlyStopping stops a cross-validation fit after this many rounds
	// without improvement of the log loss on the latest ValidShare of its
	// training rows (by Submit); the final fit uses the folds' median
	// best round count.
	EarlyStopping int     `json:"early_stopping_rounds"`
	ValidShare    float64 `json:"valid_share"`
	Seed          uint64  `json:"seed"`
	// Threads is nthread; 0 means libxgboost's default. Results do not
	// depend on it for the hist method on the CPU.
	Threads int `json:"-"`
}

// DefaultParams returns the defaults. The depth 3 had the smallest
// cross-validated pinball loss on LS6's training period among 3, 5 and 7
// (train/README.md).
func DefaultParams() Params {
	return Params{MaxDepth: 3, Eta: 0.1, Subsample: 0.8, ColsampleByNode: 0.8, MinChildWeight: 2, Rounds: 300,
		EarlyStopping: 20, ValidShare: 0.2, Seed: 1}
}

func (p Params) xgb(objective string, numClass int) []xgboost.Param {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	ps := []xgboost.Param{
		{Key: "booster", Value: "gbtree"}, {Key: "tree_method", Value: "hist"},
		{Key: "objective", Value: objective}, {Key: "max_depth", Value: strconv.Itoa(p.MaxDepth)},
		{Key: "eta", Value: f(p.Eta)}, {Key: "subsample", Value: f(p.Subsample)},
		{Key: "colsample_bynode", Value: f(p.ColsampleByNode)}, {Key: "min_child_weight", Value: f(p.MinChildWeight)},
		{Key: "seed", Value: strconv.FormatUint(p.Seed, 10)},
	}
	if numClass > 0 {
		ps = append(ps, xgboost.Param{Key: "num_class", Value: strconv.Itoa(numClass)},
			xgboost.Param{Key: "eval_metric", Value: "mlogloss"})
	} else {
		ps = append(ps, xgboost.Param{Key: "eval_metric", Value: "logloss"})
	}
	if p.Threads > 0 {
		ps = append(ps, xgboost.Param{Key: "nthread", Value: strconv.Itoa(p.Threads)})
	}
	return ps
}

// rowMajor returns rows idx of m as a row-major float32 matrix.
func rowMajor(m *Matrix, idx []int) []float32 {
	nf := len(m.Cols)
	x := make([]float32, len(idx)*nf)
	for r, i := range idx {
		for f := range nf {
			x[r*nf+f] = float32(m.Cols[f][i])
		}
	}
	return x
}

func dmatrix(m *Matrix, idx []int, y []float32) (*xgboost.DMatrix, error) {
	d, err := xgboost.NewDMatrix(rowMajor(m, idx), len(idx), len(m.Cols), xgboost.LayoutRowMajor)
	if err != nil {
		return nil, err
	}
	if y != nil {
		if err := d.SetLabels(y); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// booster is one trained libxgboost model and its kept round count.
type booster struct {
	b      *xgboost.Booster
	rounds int
}

// fitOne trains one booster on rows train of m with labels y (indexed
// like m's rows). With valid non-empty it stops early on valid's log
// loss and keeps the best round count (prediction uses only those
// rounds); otherwise it runs exactly rounds rounds.
func fitOne(ctx context.Context, m *Matrix, y []float32, train, valid []int, objective string, numClass, rounds int, p Params) (*booster, error) {
	// libxgboost keeps its random engine per OS thread: one thread per fit
	// makes the same seed give the same trees.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sub := func(idx []int) []float32 {
		out := make([]float32, len(idx))
		for r, i := range idx {
			out[r] = y[i]
		}
		return out
	}
	dt, err := dmatrix(m, train, sub(train))
	if err != nil {
		return nil, err
	}
	defer dt.Close()
	cache := []*xgboost.DMatrix{dt}
	var dv *xgboost.DMatrix
	if len(valid) > 0 {
		if dv, err = dmatrix(m, valid, sub(valid)); err != nil {
			return nil, err
		}
		defer dv.Close()
		cache = append(cache, dv)
	}
	b, err := xgboost.NewBooster(cache...)
	if err != nil {
		return nil, err
	}
	if err := b.SetParams(p.xgb(objective, numClass)); err != nil {
		b.Close()
		return nil, err
	}
	metric := "valid-logloss"
	if numClass > 0 {
		metric = "valid-mlogloss"
	}
	best, err := b.Boost(ctx, dt, dv, rounds, p.EarlyStopping, metric)
	if err != nil {
		b.Close()
		return nil, err
	}
	return &booster{b: b, rounds: best}, nil
}

// fitted is one approach's boosters: one (softprob) or one per inner
// edge (heads).
type fitted struct {
	approach Approach
	edges    []float64
	boosters []*booster
}

func (f *fitted) close() {
	for _, b := range f.boosters {
		b.b.Close()
	}
}

// rounds returns each booster's kept round count.
func (f *fitted) rounds() []int {
	out := make([]int, len(f.boosters))
	for i, b := range f.boosters {
		out[i] = b.rounds
	}
	return out
}

// fitApproach trains approach a on rows train of m (bins[i]: row i's bin
// under edges). rounds gives each booster's round count when valid is
// empty (one value for softprob, one per inner edge for heads).
func fitApproach(ctx context.Context, a Approach, m *Matrix, bins []int, edges []float64, train, valid []int, rounds []int, p Params) (*fitted, error) {
	nb := len(edges) - 1
	f := &fitted{approach: a, edges: edges}
	roundsOf := func(k int) int {
		if len(valid) > 0 || k >= len(rounds) {
			return p.Rounds
		}
		return max(1, rounds[k])
	}
	if a == ApproachSoftprob {
		y := make([]float32, len(bins))
		for i, b := range bins {
			y[i] = float32(b)
		}
		b, err := fitOne(ctx, m, y, train, valid, "multi:softprob", nb, roundsOf(0), p)
		if err != nil {
			return nil, fmt.Errorf("fit softprob: %w", err)
		}
		f.boosters = []*booster{b}
		return f, nil
	}
	y := make([]float32, len(bins))
	for k := range nb - 1 {
		for i, b := range bins {
			y[i] = 0
			if b <= k {
				y[i] = 1
			}
		}
		b, err := fitOne(ctx, m, y, train, valid, "binary:logistic", 0, roundsOf(k), p)
		if err != nil {
			f.close()
			return nil, fmt.Errorf("fit head %d: %w", k, err)
		}
		f.boosters = append(f.boosters, b)
	}
	return f, nil
}

// predict returns the bin probabilities of rows idx of m, row-major
// (len(idx) x bins), with libxgboost.
func (f *fitted) predict(m *Matrix, idx []int) ([]float32, error) {
	nb := len(f.edges) - 1
	d, err := dmatrix(m, idx, nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if f.approach == ApproachSoftprob {
		out, err := f.boosters[0].b.Predict(d, f.boosters[0].rounds)
		if err != nil {
			return nil, err
		}
		if len(out) != len(idx)*nb {
			return nil, fmt.Errorf("predict softprob: %d values for %d rows x %d bins", len(out), len(idx), nb)
		}
		return out, nil
	}
	cdf := make([][]float32, len(f.boosters))
	for k, b := range f.boosters {
		if cdf[k], err = b.b.Predict(d, b.rounds); err != nil {
			return nil, err
		}
	}
	out := make([]float32, len(idx)*nb)
	c := make([]float64, len(cdf))
	for r := range idx {
		for k := range cdf {
			c[k] = float64(cdf[k][r])
		}
		copy(out[r*nb:(r+1)*nb], pmfFromCDF(c))
	}
	return out, nil
}

// save returns each booster's XGBoost JSON with only its kept rounds: the
// booster is retrained with exactly that many rounds when early stopping
// kept fewer than it ran.
func (f *fitted) save() ([][]byte, error) {
	out := make([][]byte, len(f.boosters))
	for i, b := range f.boosters {
		n, err := b.b.BoostedRounds()
		if err != nil {
			return nil, err
		}
		if n != b.rounds {
			return nil, fmt.Errorf("save booster %d: %d rounds boosted, %d kept: fit it without validation rows", i, n, b.rounds)
		}
		if out[i], err = b.b.Save(xgboost.FormatJSON); err != nil {
			return nil, err
		}
	}
	return out, nil
}
