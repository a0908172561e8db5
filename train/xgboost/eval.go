package xgboost

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseEval decodes an Eval line such as "[3]\ttrain-rmse:0.5\tvalid-rmse:0.7"
// into {"train-rmse": 0.5, "valid-rmse": 0.7}.
func ParseEval(line string) (map[string]float64, error) {
	m := map[string]float64{}
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "[") {
			continue
		}
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			return nil, fmt.Errorf("xgboost parse eval %q: field %q has no colon", line, f)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("xgboost parse eval %q: %w", line, err)
		}
		m[k] = x
	}
	return m, nil
}
