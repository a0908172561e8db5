package reports

import "testing"

// TestNewLabels: models are labelled by their directory's base name; two
// kinds reading one directory are told apart by kind, and two models of
// one kind with the same base name by a suffix.
func TestNewLabels(t *testing.T) {
	l := NewLabels([]string{
		"reactive", "slurm-estimate", "runtime-estimate:/tmp/x/fc", "forecast:/tmp/x/fc@τ=0.3", "forecast:/tmp/x/fc",
		"xgboost:a/m", "xgboost:b/m", "forest:rf", "oracle-cost@λ=0.5",
	})
	for policy, want := range map[string]string{
		"reactive":                   "reactive",
		"slurm-estimate":             "slurm-est",
		"runtime-estimate:/tmp/x/fc": "runtime-estimate:fc",
		"forecast:/tmp/x/fc":         "forecast:fc",
		"xgboost:a/m":                "m",
		"xgboost:b/m":                "m-2",
		"forest:rf":                  "rf",
	} {
		if got := l.Label(policy); got != want {
			t.Errorf("Label(%q) = %q, want %q", policy, got, want)
		}
	}
	if got := l.Label("forecast:/tmp/x/fc@τ=0.3"); got != "forecast:fc@τ=0.3" {
		t.Errorf("swept forecast: %q", got)
	}
}
