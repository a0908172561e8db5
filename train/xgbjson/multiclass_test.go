package xgbjson

import (
	"errors"
	"math"
	"testing"
)

// twoClass has one stump per class: class 0 gets +1 when f0 < 0.5 (NaN
// goes left), class 1 gets +2 always.
const twoClass = `{"version":[1,7,4],"learner":{"learner_model_param":{"base_score":"5E-1","num_feature":"1","num_class":"2"},
"objective":{"name":"multi:softprob"},"gradient_booster":{"name":"gbtree","model":{"tree_info":[0,1],"trees":[
{"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[0,0,0],"split_conditions":[0.5,1,0],"default_left":[1,0,0]},
{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[2],"default_left":[0]}]}}}}`

func TestMultiModel_Predict(t *testing.T) {
	m, err := ParseMulti([]byte(twoClass))
	if err != nil {
		t.Fatal(err)
	}
	softmax0 := func(a, b float64) float64 { return math.Exp(a) / (math.Exp(a) + math.Exp(b)) }
	tests := []struct {
		Name string
		X    float32
		Want float64 // P(class 0)
	}{
		{"Left", 0, softmax0(1.5, 2.5)},
		{"Right", 1, softmax0(0.5, 2.5)},
		{"MissingDefaultLeft", float32(math.NaN()), softmax0(1.5, 2.5)},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			p := m.Predict(nil, []float32{tt.X})
			if math.Abs(float64(p[0])-tt.Want) > 1e-6 || math.Abs(float64(p[0]+p[1])-1) > 1e-6 {
				t.Errorf("Predict(%v) = %v, want P(0) = %v", tt.X, p, tt.Want)
			}
		})
	}
}

func TestParseMulti_Unsupported(t *testing.T) {
	_, err := ParseMulti([]byte(`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"1"},"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree"}}}`))
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("got %v, want ErrUnsupported", err)
	}
}
