package xgbjson

import (
	"math"
	"testing"
)

// FuzzParse checks that any model file Parse or ParseMulti accepts can be
// evaluated: Predict on a row of NumFeature values (zeros, then NaN)
// never panics or loops, since a model directory is input a user may
// have edited or been handed.
func FuzzParse(f *testing.F) {
	f.Add([]byte(stump))
	f.Add([]byte(`{"version":[1,7,4],"learner":{"learner_model_param":{"base_score":"2E-1","num_feature":"1"},
	"objective":{"name":"binary:logistic"},"gradient_booster":{"name":"gbtree","model":{"trees":[
	{"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[0,0,0],"split_conditions":[1,-1,1.5],
	 "default_left":[1,0,0],"split_type":[0,0,0],"categories":[]}]}}}}`))
	f.Add([]byte(`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"2","num_class":"3"},
	"objective":{"name":"multi:softprob"},"gradient_booster":{"name":"gbtree","model":{"tree_info":[0,1,2],"trees":[
	{"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[1,0,0],"split_conditions":[3,-1,2],"default_left":[1,0,0]},
	{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[0.25],"default_left":[0]},
	{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[1],"default_left":[0]}]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nan := float32(math.NaN())
		if m, err := Parse(data); err == nil {
			row := make([]float32, m.NumFeature)
			m.Predict(row)
			for i := range row {
				row[i] = nan
			}
			m.Predict(row)
		}
		if m, err := ParseMulti(data); err == nil {
			row := make([]float32, m.NumFeature)
			if got := m.Predict(nil, row); len(got) != m.NumClass {
				t.Fatalf("%d outputs for %d classes", len(got), m.NumClass)
			}
		}
	})
}
