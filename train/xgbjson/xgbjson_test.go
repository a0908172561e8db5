package xgbjson

import (
	"errors"
	"math"
	"strings"
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
		`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"1"},"objective":{"name":"reg:gamma"},"gradient_booster":{"name":"gbtree"}}}`,
		`{"learner":{"learner_model_param":{"base_score":"0","num_feature":"1"},"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"dart"}}}`,
	} {
		if _, err := Parse([]byte(s)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse = %v, want ErrUnsupported", err)
		}
	}
}

// TestPredict_Logistic checks the sigmoid link of binary:logistic: the
// margin starts at logit(base_score) and the prediction is a probability.
func TestPredict_Logistic(t *testing.T) {
	js := `{"version":[1,7,4],"learner":{"learner_model_param":{"base_score":"2E-1","num_feature":"1"},
	"objective":{"name":"binary:logistic"},"gradient_booster":{"name":"gbtree","model":{"trees":[
	{"left_children":[1,-1,-1],"right_children":[2,-1,-1],"split_indices":[0,0,0],"split_conditions":[1,-1,1.5],
	 "default_left":[1,0,0],"split_type":[0,0,0],"categories":[]}]}}}}`
	m, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Logistic {
		t.Fatal("Logistic = false")
	}
	sig := func(x float64) float32 { return float32(1 / (1 + math.Exp(-x))) }
	logit := math.Log(0.2 / 0.8)
	for _, c := range []struct {
		x    float32
		want float32
	}{{0, sig(logit - 1)}, {2, sig(logit + 1.5)}} {
		if got := m.Predict([]float32{c.x}); math.Abs(float64(got-c.want)) > 1e-6 {
			t.Errorf("Predict(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	bad := strings.Replace(js, "2E-1", "1", 1)
	if _, err := Parse([]byte(bad)); err == nil {
		t.Error("base_score 1 accepted for a logistic model")
	}
}

// TestParse_Malformed: models that parse as JSON but would panic or give
// NaN when evaluated are refused: a tree with no nodes (its root does not
// exist), no feature (Predict indexes row[-1]), a base score that is not
// finite.
func TestParse_Malformed(t *testing.T) {
	model := func(baseScore, numFeature, tree string) string {
		return `{"learner":{"learner_model_param":{"base_score":"` + baseScore + `","num_feature":"` + numFeature + `"},
"objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree","model":{"trees":[` + tree + `]}}}}`
	}
	leaf := `{"left_children":[-1],"right_children":[-1],"split_indices":[0],"split_conditions":[1],"default_left":[false]}`
	empty := `{"left_children":[],"right_children":[],"split_indices":[],"split_conditions":[],"default_left":[]}`
	if _, err := Parse([]byte(model("0.5", "1", leaf))); err != nil {
		t.Fatalf("the valid model: %v", err)
	}
	for name, s := range map[string]string{
		"EmptyTree":    model("0.5", "1", empty),
		"NoFeature":    model("0.5", "0", leaf),
		"NegFeature":   model("0.5", "-3", leaf),
		"ManyFeatures": model("0.5", "2000000000", leaf),
		"NaNBaseScore": model("NaN", "1", leaf),
		"InfBaseScore": model("+Inf", "1", leaf),
	} {
		if m, err := Parse([]byte(s)); err == nil {
			t.Errorf("%s: parsed (%d features, base score %v)", name, m.NumFeature, m.BaseScore)
		}
	}
}
