package plotticks

import (
	"strings"
	"testing"
)

func labels(lo, hi float64, f func(lo, hi float64) []string) string {
	return strings.Join(f(lo, hi), " ")
}

func TestTidy(t *testing.T) {
	get := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (Tidy{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got, want := labels(0, 1, get), "0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1"; got != want {
		t.Errorf("[0, 1]: %q, want %q", got, want)
	}
	if got, want := labels(0, 55000, get), "0 10000 20000 30000 40000 50000"; got != want {
		t.Errorf("[0, 55000]: %q, want %q", got, want)
	}
}

func TestLogHours(t *testing.T) {
	get := func(lo, hi float64) []string {
		var out []string
		for _, tk := range LogHours(lo, hi) {
			out = append(out, tk.Label)
		}
		return out
	}
	if got, want := labels(1.0/60, 30, get), "1 min 10 min 1 h 6 h 1 day"; got != want {
		t.Errorf("1 min to 30 h: %q, want %q", got, want)
	}
}
