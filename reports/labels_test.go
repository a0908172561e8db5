package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

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

func TestTidyTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 4, []string{"0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5", "4"}},
		{-0.1, 2.1, []string{"0", "0.25", "0.5", "0.75", "1", "1.25", "1.5", "1.75", "2"}},
		{0, 47.6, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40", "45"}},
		{-72, 72, []string{"-60", "-40", "-20", "0", "20", "40", "60"}},
	} {
		var got []string
		for _, tk := range (tidyTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("ticks of [%g, %g] = %q, want %q", c.lo, c.hi, got, c.want)
		}
		if len(got) < 5 {
			t.Errorf("[%g, %g]: only %d labelled ticks", c.lo, c.hi, len(got))
		}
	}
}

// TestLabelColours: the policies of a report have a colour each (the
// oracles black), up to the palette's size.
func TestLabelColours(t *testing.T) {
	pols := []string{"reactive", "immediate", "avg", "slurm-estimate", "slurm-estimate-rt", "oracle", "oracle-cost",
		"dqn:m/dqn", "forest:m/forest", "xgboost:m/xgboost", "xgboost:m/xgboost-interrupt", "slurm-estimate:m/estimate",
		"slurm-estimate:m/estimate-rt"}
	l := NewLabels(pols)
	seen := map[string]string{}
	for _, p := range pols {
		c := fmt.Sprint(styleColor(l.Style(p)))
		if p == "oracle" || p == "oracle-cost" {
			if c != fmt.Sprint(styleColor(0)) {
				t.Errorf("%s is not black: %s", p, c)
			}
			continue
		}
		if o, ok := seen[c]; ok {
			t.Errorf("%s and %s share the colour %s", o, p, c)
		}
		seen[c] = p
	}
}

func TestReadableSeconds(t *testing.T) {
	got := readableSeconds("3 time-blocked folds (gap 604800 s), 7200 s, 90 s, 45 s")
	if want := "3 time-blocked folds (gap 7 d), 2 h, 90 s, 45 s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNextStep(t *testing.T) {
	for _, c := range []struct{ policy, command string }{
		{"forest:stages/train-forest-1/forest", "mirage advise --model stages/train-forest-1/forest --job P_JOBID"},
		{"slurm-estimate:m/estimate", "mirage advise --model m/estimate --job P_JOBID"},
		{"reactive", "sbatch --dependency=afterany:P_JOBID Q.sbatch"},
		{"avg", ""},
	} {
		n := nextStep(c.policy)
		if n.Command != c.command || n.Text == "" {
			t.Errorf("%s: %+v, want command %q and a text", c.policy, n, c.command)
		}
	}
}

func TestMeanRunH(t *testing.T) {
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, PStart: 0, PEnd: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, PStart: 0, PEnd: 7200},
		{Policy: "reactive", ChainNodes: 1, Window: 1, PStart: 0, PEnd: 14400},
		{Policy: "reactive", ChainNodes: 4, Window: 0, PStart: 100, PEnd: 100 + 36000},
	}
	got := meanRunH(rows)
	if got[1] != 3 || got[4] != 10 {
		t.Errorf("mean run %v, want 3 h at 1 node and 10 h at 4", got)
	}
}
