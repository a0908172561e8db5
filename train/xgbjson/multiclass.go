package xgbjson

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// MultiModel is a parsed multi-class tree ensemble (multi:softprob or
// multi:softmax): tree t adds its leaf to the margin of class tree_info[t].
type MultiModel struct {
	// NumClass is the number of classes (>= 2).
	NumClass int
	// NumFeature is the number of input columns the model expects.
	NumFeature int
	// BaseScore is the initial margin of every class.
	BaseScore float32
	// Objective is XGBoost's objective name.
	Objective string
	trees     []tree
	class     []int32 // class of each tree
}

// ParseMulti decodes an XGBoost JSON model saved with objective
// multi:softprob or multi:softmax (gbtree, numerical splits). It returns
// an error wrapping ErrUnsupported for anything else.
func ParseMulti(data []byte) (*MultiModel, error) {
	var j jsonModel
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("xgbjson: parse: %w", err)
	}
	l := &j.Learner
	if l.Booster.Name != "gbtree" {
		return nil, fmt.Errorf("%w: booster %q", ErrUnsupported, l.Booster.Name)
	}
	if l.Objective.Name != "multi:softprob" && l.Objective.Name != "multi:softmax" {
		return nil, fmt.Errorf("%w: objective %q is not multi-class", ErrUnsupported, l.Objective.Name)
	}
	nc, err := strconv.Atoi(l.Param.NumClass)
	if err != nil || nc < 2 {
		return nil, fmt.Errorf("xgbjson: num_class %q: want an integer >= 2", l.Param.NumClass)
	}
	bs, nf, err := parseParams(l.Param.BaseScore, l.Param.NumFeature)
	if err != nil {
		return nil, err
	}
	trees := l.Booster.Model.Trees
	info := l.Booster.Model.TreeInfo
	if len(info) != len(trees) {
		return nil, fmt.Errorf("xgbjson: %d trees, %d tree_info entries", len(trees), len(info))
	}
	m := &MultiModel{NumClass: nc, NumFeature: nf, BaseScore: float32(bs), Objective: l.Objective.Name}
	for ti := range trees {
		if info[ti] < 0 || info[ti] >= nc {
			return nil, fmt.Errorf("xgbjson: tree %d: class %d of %d", ti, info[ti], nc)
		}
		tr, err := newTree(ti, &trees[ti], nf)
		if err != nil {
			return nil, err
		}
		m.trees = append(m.trees, tr)
		m.class = append(m.class, int32(info[ti]))
	}
	return m, nil
}

// NumTrees returns the number of trees (rounds times NumClass).
func (m *MultiModel) NumTrees() int { return len(m.trees) }

// Predict writes the class probabilities of one row of NumFeature values
// (NaN for missing) into out (len NumClass; nil allocates) and returns
// it: the softmax of the per-class margins, each summed in float32 from
// BaseScore in tree order as libxgboost does (the probabilities agree
// with libxgboost's to about 1e-7; exp may differ in the last bit). It panics if len(row) <
// NumFeature or out has the wrong length.
func (m *MultiModel) Predict(out []float32, row []float32) []float32 {
	_ = row[m.NumFeature-1]
	if out == nil {
		out = make([]float32, m.NumClass)
	}
	if len(out) != m.NumClass {
		panic(fmt.Sprintf("xgbjson: %d outputs for %d classes", len(out), m.NumClass))
	}
	for c := range out {
		out[c] = m.BaseScore
	}
	for t := range m.trees {
		out[m.class[t]] += m.trees[t].leaf(row)
	}
	mx := out[0]
	for _, v := range out[1:] {
		mx = max(mx, v)
	}
	var sum float64 // libxgboost sums the float exponentials in double
	for c, v := range out {
		e := float32(math.Exp(float64(v - mx)))
		out[c] = e
		sum += float64(e)
	}
	for c := range out {
		out[c] /= float32(sum)
	}
	return out
}
