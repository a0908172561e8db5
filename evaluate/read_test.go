package evaluate_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want evaluate.Name
	}{
		{"reactive", evaluate.Name{Policy: "reactive", Family: "reactive", Kind: "reactive"}},
		{"forest:out/m@θ=0.5", evaluate.Name{Policy: "forest:out/m@θ=0.5", Family: "forest:out/m", Kind: "forest", Dir: "out/m", Key: "θ", Value: 0.5, Swept: true}},
		{"slurm-estimate@margin=2", evaluate.Name{Policy: "slurm-estimate@margin=2", Family: "slurm-estimate", Kind: "slurm-estimate", Key: "margin", Value: 2, Swept: true}},
		{"dqn:a@b", evaluate.Name{Policy: "dqn:a@b", Family: "dqn:a@b", Kind: "dqn", Dir: "a@b"}},
	} {
		if got := evaluate.ParseName(tc.in); got != tc.want {
			t.Errorf("ParseName(%q)\ngot  %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}

// TestWriteDir_ModelDirs checks that model directories are stored relative
// to the evaluation directory and resolve from any working directory.
func TestWriteDir_ModelDirs(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if err := os.MkdirAll("models/forest", 0o755); err != nil {
		t.Fatal(err)
	}
	m := evaluate.Metrics{Policies: map[string]evaluate.PolicyMetrics{
		"reactive": {}, "forest:models/forest": {}, "forest:models/forest@θ=1": {}, "xgboost:gone": {}}}
	if err := evaluate.WriteDir("runs/eval", m, nil); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // elsewhere
	evalDir := filepath.Join(root, "runs/eval")
	got, err := evaluate.ReadMetrics(evalDir)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.ModelDirs["forest:models/forest"]; d != "../../models/forest" {
		t.Errorf("stored %q, want ../../models/forest", d)
	}
	dir, err := got.ModelDir(evalDir, "forest:models/forest")
	if err != nil || dir != filepath.Join(root, "models/forest") {
		t.Errorf("ModelDir = %q, %v", dir, err)
	}
	if _, err := got.ModelDir(evalDir, "xgboost:gone"); !errors.Is(err, evaluate.ErrModelDir) {
		t.Errorf("missing dir: err = %v, want ErrModelDir", err)
	}
	if _, err := evaluate.ReadMetrics(t.TempDir()); !errors.Is(err, evaluate.ErrNoEvaluation) {
		t.Errorf("empty dir: err = %v, want ErrNoEvaluation", err)
	}
}
