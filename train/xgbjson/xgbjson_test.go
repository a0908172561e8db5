package xgbjson

import (
	"errors"
	"math"
	"testing"
)

const stump = `{"version":[1,7,4],"learner":{"learner_model_param":{"base_score":"5E-1","num_feature":"2","num_target":"1"},
"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree","model":{"trees":[
{"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[1,0,0],"split_conditions":[3,-1,2],"default_left":[1,0,0]},
{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[0.25],"default_left":[false]}],"tree_info":[0,0]}}}}`

func TestModel_Predict(t *testing.T) {
	m, err := Parse([]byte(stump))
	if err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	for _, c := range []struct {
		row  []float32
		want float32
	}{
		{[]float32{0, 2}, 0.5 - 1 + 0.25},
		{[]float32{0, 3}, 0.5 + 2 + 0.25},
		{[]float32{0, nan}, 0.5 - 1 + 0.25},
	} {
		if got := m.Predict(c.row); got != c.want {
			t.Errorf("Predict(%v) = %v, want %v", c.row, got, c.want)
		}
	}
}

func TestParse_Unsupported(t *testing.T) {
	for _, s := range []string{
		`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"1"},"objective":{"name":"binary:logistic"},"gradient_booster":{"name":"gbtree"}}}`,
		`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"1"},"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"dart"}}}`,
	} {
		if _, err := Parse([]byte(s)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse = %v, want ErrUnsupported", err)
		}
	}
}
