package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"forrest", "forest", 1}, {"stauts", "status", 1}, {"tarce", "trace", 1}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	kinds := []string{"forest", "xgboost", "estimate", "estimate-rt", "dqn", "runtime", "forecast"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"forrest", []string{"forest"}},
		{"xgbost", []string{"xgboost"}},
		{"forest", nil},
		{"zzzzzz", nil},
		{"estim", []string{"estimate", "estimate-rt"}},
		{"oracle-cots", []string{"oracle-cost"}},
	} {
		opts := kinds
		if c.name == "oracle-cots" {
			opts = []string{"oracle", "oracle-cost", "reactive"}
		}
		if got := Closest(c.name, opts); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if h := Hint("windws", []string{"start", "windows", "stride"}); h != "; did you mean windows?" {
		t.Errorf("Hint = %q", h)
	}
}
