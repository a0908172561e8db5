package xgbjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrUnsupported is returned by Parse for models this evaluator cannot
// reproduce (another booster, a non-identity link, categorical splits,
// several outputs).
var ErrUnsupported = errors.New("xgbjson: unsupported model")

// Model is a parsed tree ensemble.
type Model struct {
	// BaseScore is the initial prediction.
	BaseScore float32
	// NumFeature is the number of input columns the model expects.
	NumFeature int
	// Objective is XGBoost's objective name, such as "reg:squarederror".
	Objective string
	// Version is the XGBoost version that saved the model.
	Version [3]int
	// Logistic is set for binary:logistic and reg:logistic: the
	// prediction is the sigmoid of the margin, a probability.
	Logistic bool
	trees    []tree
}

type tree struct {
	left, right []int32
	feat        []int32
	cond        []float32
	defLeft     []bool
}

// identity lists the objectives whose prediction is the raw margin.
var identity = map[string]bool{
	"reg:squarederror": true, "reg:pseudohubererror": true, "reg:linear": true,
	"reg:absoluteerror": true, "reg:quantileerror": true,
}

// logistic lists the objectives whose prediction is the sigmoid of the
// margin; their base_score is a probability.
var logistic = map[string]bool{"binary:logistic": true, "reg:logistic": true}

type flexBool bool

func (b *flexBool) UnmarshalJSON(p []byte) error {
	switch string(p) {
	case "true", "1":
		*b = true
	case "false", "0":
		*b = false
	default:
		return fmt.Errorf("xgbjson: bad boolean %s", p)
	}
	return nil
}

type jsonModel struct {
	Version [3]int `json:"version"`
	Learner struct {
		Param struct {
			BaseScore  string `json:"base_score"`
			NumFeature string `json:"num_feature"`
			NumTarget  string `json:"num_target"`
			NumClass   string `json:"num_class"`
		} `json:"learner_model_param"`
		Objective struct {
			Name string `json:"name"`
		} `json:"objective"`
		Booster struct {
			Name  string `json:"name"`
			Model struct {
				Trees    []jsonTree `json:"trees"`
				TreeInfo []int      `json:"tree_info"`
			} `json:"model"`
		} `json:"gradient_booster"`
	} `json:"learner"`
}

// jsonTree is one tree of a JSON model, as XGBoost writes it.
type jsonTree struct {
	Left       []int32    `json:"left_children"`
	Right      []int32    `json:"right_children"`
	Indices    []int32    `json:"split_indices"`
	Conditions []float32  `json:"split_conditions"`
	DefLeft    []flexBool `json:"default_left"`
	SplitType  []int      `json:"split_type"`
	Categories []int      `json:"categories"`
}

// newTree checks tree ti of a model of nf features and converts it: an
// error for arrays of different lengths, bad child or feature indices, a
// child before its parent, or (wrapping ErrUnsupported) categorical
// splits.
func newTree(ti int, t *jsonTree, nf int) (tree, error) {
	n := len(t.Left)
	if n == 0 {
		return tree{}, fmt.Errorf("xgbjson: tree %d has no nodes", ti)
	}
	if len(t.Right) != n || len(t.Indices) != n || len(t.Conditions) != n || len(t.DefLeft) != n {
		return tree{}, fmt.Errorf("xgbjson: tree %d: arrays of different lengths", ti)
	}
	if len(t.Categories) > 0 {
		return tree{}, fmt.Errorf("%w: tree %d has categorical splits", ErrUnsupported, ti)
	}
	for _, s := range t.SplitType {
		if s != 0 {
			return tree{}, fmt.Errorf("%w: tree %d has categorical splits", ErrUnsupported, ti)
		}
	}
	tr := tree{left: t.Left, right: t.Right, feat: t.Indices, cond: t.Conditions, defLeft: make([]bool, n)}
	for i := range n {
		tr.defLeft[i] = bool(t.DefLeft[i])
		if tr.left[i] >= int32(n) || tr.right[i] >= int32(n) || (tr.left[i] >= 0 && (tr.feat[i] < 0 || int(tr.feat[i]) >= nf)) {
			return tree{}, fmt.Errorf("xgbjson: tree %d node %d: bad child or feature index", ti, i)
		}
		if tr.left[i] >= 0 && (tr.left[i] <= int32(i) || tr.right[i] <= int32(i)) {
			return tree{}, fmt.Errorf("xgbjson: tree %d node %d: child before parent", ti, i)
		}
	}
	return tr, nil
}

// MaxFeatures bounds a model's num_feature: callers size a row by it, and
// a model file is input a user may have edited.
const MaxFeatures = 1 << 20

// parseParams parses base_score (finite) and num_feature (1 to
// MaxFeatures).
func parseParams(baseScore, numFeature string) (float64, int, error) {
	bs, err := strconv.ParseFloat(baseScore, 32)
	if err != nil || math.IsNaN(bs) || math.IsInf(bs, 0) {
		return 0, 0, fmt.Errorf("xgbjson: base_score %q: want a finite number", baseScore)
	}
	nf, err := strconv.Atoi(numFeature)
	if err != nil || nf < 1 || nf > MaxFeatures {
		return 0, 0, fmt.Errorf("xgbjson: num_feature %q: want an integer from 1 to %d", numFeature, MaxFeatures)
	}
	return bs, nf, nil
}

// Parse decodes an XGBoost JSON model. It returns an error wrapping
// ErrUnsupported for a model it cannot evaluate exactly.
func Parse(data []byte) (*Model, error) {
	var j jsonModel
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("xgbjson: parse: %w", err)
	}
	l := &j.Learner
	if l.Booster.Name != "gbtree" {
		return nil, fmt.Errorf("%w: booster %q", ErrUnsupported, l.Booster.Name)
	}
	if !identity[l.Objective.Name] && !logistic[l.Objective.Name] {
		return nil, fmt.Errorf("%w: objective %q", ErrUnsupported, l.Objective.Name)
	}
	for _, s := range []string{l.Param.NumTarget, l.Param.NumClass} {
		if s != "" && s != "0" && s != "1" {
			return nil, fmt.Errorf("%w: %s outputs", ErrUnsupported, s)
		}
	}
	bs, nf, err := parseParams(l.Param.BaseScore, l.Param.NumFeature)
	if err != nil {
		return nil, err
	}
	m := &Model{BaseScore: float32(bs), NumFeature: nf, Objective: l.Objective.Name, Version: j.Version}
	if logistic[l.Objective.Name] {
		if bs <= 0 || bs >= 1 {
			return nil, fmt.Errorf("xgbjson: logistic base_score %v not in (0, 1)", bs)
		}
		m.Logistic = true
		m.BaseScore = float32(math.Log(bs / (1 - bs))) // the margin
	}
	for ti := range l.Booster.Model.Trees {
		tr, err := newTree(ti, &l.Booster.Model.Trees[ti], nf)
		if err != nil {
			return nil, err
		}
		m.trees = append(m.trees, tr)
	}
	return m, nil
}

// NumTrees returns the number of trees.
func (m *Model) NumTrees() int { return len(m.trees) }

// Predict returns the prediction for one row of NumFeature values (NaN
// for missing): the margin, or its sigmoid for a logistic objective. It panics if len(row) < NumFeature.
func (m *Model) Predict(row []float32) float32 {
	_ = row[m.NumFeature-1]
	sum := m.BaseScore
	for t := range m.trees {
		sum += m.trees[t].leaf(row)
	}
	if m.Logistic {
		return float32(1 / (1 + math.Exp(-float64(sum))))
	}
	return sum
}

func (t *tree) leaf(row []float32) float32 {
	i := int32(0)
	for t.left[i] >= 0 {
		x := row[t.feat[i]]
		switch {
		case x != x: // NaN
			if t.defLeft[i] {
				i = t.left[i]
			} else {
				i = t.right[i]
			}
		case x < t.cond[i]:
			i = t.left[i]
		default:
			i = t.right[i]
		}
	}
	return t.cond[i]
}

// PredictColumns writes the prediction of each row of the column-major
// matrix cols (cols[f][i] is feature f of row i) into out, which must
// have one element per row, and returns out. A nil out is allocated.
func (m *Model) PredictColumns(out []float32, cols [][]float64) []float32 {
	if len(cols) != m.NumFeature {
		panic(fmt.Sprintf("xgbjson: %d columns, model has %d features", len(cols), m.NumFeature))
	}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	if out == nil {
		out = make([]float32, n)
	}
	row := make([]float32, len(cols))
	for i := range n {
		for f := range cols {
			v := cols[f][i]
			if math.IsNaN(v) {
				row[f] = float32(math.NaN())
			} else {
				row[f] = float32(v)
			}
		}
		out[i] = m.Predict(row)
	}
	return out
}
