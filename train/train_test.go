//go:build cgo && !noxgboost

package train

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// synth returns random samples: 40 windows, 2 chain sizes, 5 probes, 6
// features with NaNs, r depending on two of them.
func synth() (*features.Samples, SamplesMeta) {
	r := rand.New(rand.NewPCG(3, 4))
	s := &features.Samples{}
	const nf = 6
	meta := SamplesMeta{SchemaVersion: features.FeatureSchemaVersion, Protocol: "test"}
	for f := range nf {
		name := "f_" + string(rune('a'+f))
		s.Names = append(s.Names, name)
		meta.Features = append(meta.Features, features.Feature{Name: name, Unit: "s"})
	}
	s.Features = make([][]float64, nf)
	for _, c := range []int32{1, 8} {
		for w := range 40 {
			for p := range 5 {
				s.WindowID = append(s.WindowID, int32(w))
				s.WindowStart = append(s.WindowStart, int64(w)*4*3600)
				s.ChainNodes = append(s.ChainNodes, c)
				s.ProbeTime = append(s.ProbeTime, int64(w)*4*3600+int64(p)*600)
				var x [nf]float64
				for f := range nf {
					x[f] = r.NormFloat64() * 1000
					if r.IntN(20) == 0 {
						x[f] = math.NaN()
					}
					s.Features[f] = append(s.Features[f], x[f])
				}
				a := x[0]
				if math.IsNaN(a) {
					a = 0
				}
				y := a*10 - float64(c)*3600 + r.NormFloat64()*1800
				s.LabelRSec = append(s.LabelRSec, int64(y))
				s.LabelWaitSec = append(s.LabelWaitSec, 0)
			}
		}
	}
	meta.Options = []byte(`{"warmup": 43200000000000, "workload": 0}`) // 12 h span
	return s, meta
}

func TestRun_ParityAndArtifact(t *testing.T) {
	s, meta := synth()
	for _, k := range []Kind{KindForest, KindXGBoost} {
		t.Run(k.String(), func(t *testing.T) {
			p := DefaultParams(k)
			p.NumParallelTree = min(p.NumParallelTree, 30)
			p.Rounds = min(p.Rounds, 100)
			p.Threads = 2
			dir := filepath.Join(t.TempDir(), "m")
			m, err := Run(context.Background(), s, meta, dir, Options{Params: p, K: 4, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if m.CV == nil || len(m.CV.Folds) != 4 || m.CV.Overall.Rows != s.Len() {
				t.Fatalf("cv = %+v", m.CV)
			}
			a, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.Predict(s, features.FeatureSchemaVersion)
			if err != nil {
				t.Fatal(err)
			}
			// libxgboost on the same model.
			buf, _ := os.ReadFile(filepath.Join(dir, ModelFile))
			b, err := xgboost.LoadBooster(buf)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			d := NewData(s)
			all := make([]int, s.Len())
			for i := range all {
				all[i] = i
			}
			dm, err := d.dmatrix(all)
			if err != nil {
				t.Fatal(err)
			}
			defer dm.Close()
			want, err := b.Predict(dm, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-6 {
					t.Fatalf("row %d: pure Go %v, libxgboost %v", i, got[i], want[i])
				}
			}
			pythonCheck(t, dir, s, want)

			// Refusals.
			if err := a.Check(s.Names, 99); !errors.Is(err, ErrFeatures) {
				t.Errorf("schema version: %v, want ErrFeatures", err)
			}
			swapped := append([]string{s.Names[1], s.Names[0]}, s.Names[2:]...)
			if err := a.Check(swapped, features.FeatureSchemaVersion); !errors.Is(err, ErrFeatures) {
				t.Errorf("swapped names: %v, want ErrFeatures", err)
			}
			model := filepath.Join(dir, ModelFile)
			tampered := strings.Replace(string(buf), `"base_score"`, ` "base_score"`, 1)
			if err := os.WriteFile(model, []byte(tampered), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(dir); !errors.Is(err, ErrDigest) {
				t.Errorf("tampered model: %v, want ErrDigest", err)
			}
		})
	}
}

// pythonCheck loads model.json with Python's xgboost and compares its
// predictions to want within 1e-5.
func pythonCheck(t *testing.T, dir string, s *features.Samples, want []float32) {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import xgboost, numpy").Run(); err != nil {
		t.Logf("skipping Python cross-check: %s cannot import xgboost and numpy: %v", py, err)
		return
	}
	var sb strings.Builder
	for i := range s.Len() {
		for f := range s.Features {
			if f > 0 {
				sb.WriteByte(',')
			}
			v := s.Features[f][i]
			if math.IsNaN(v) {
				sb.WriteString("nan")
			} else {
				sb.WriteString(formatFloat(float64(float32(v))))
			}
		}
		sb.WriteByte('\n')
	}
	csv := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(csv, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `import sys, numpy as np, xgboost as xgb
b = xgb.Booster(); b.load_model(sys.argv[1])
x = np.loadtxt(sys.argv[2], delimiter=",", ndmin=2).astype(np.float32)
for v in b.predict(xgb.DMatrix(x, missing=np.nan)): print(repr(float(v)))`
	out, err := exec.Command(py, "-c", script, filepath.Join(dir, ModelFile), csv).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(want) {
		t.Fatalf("python printed %d predictions, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		v, err := parseFloat(l)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-float64(want[i])) > 1e-5 {
			t.Fatalf("row %d: python %v, libxgboost %v", i, v, want[i])
		}
	}
}

// TestRun_Deterministic: the same samples, parameters and seed give
// byte-identical model.json and cv.json, cross-validation and early
// stopping included (libxgboost's per-thread random engine must not see
// calls hop between OS threads).
func TestRun_Deterministic(t *testing.T) {
	s, meta := synth()
	for _, k := range []Kind{KindForest, KindXGBoost} {
		t.Run(k.String(), func(t *testing.T) {
			p := DefaultParams(k)
			p.NumParallelTree = min(p.NumParallelTree, 20)
			p.Rounds = min(p.Rounds, 60)
			p.Threads = 2
			var files [2][2][]byte
			for i := range files {
				dir := filepath.Join(t.TempDir(), "m")
				done := make(chan error, 1)
				// A fresh goroutine each time, so the OS thread differs.
				go func() {
					_, err := Run(context.Background(), s, meta, dir, Options{Params: p, K: 3, Version: "test"})
					done <- err
				}()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				for j, name := range []string{ModelFile, "cv.json"} {
					b, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil {
						t.Fatal(err)
					}
					files[i][j] = b
				}
			}
			for j, name := range []string{ModelFile, "cv.json"} {
				if !bytes.Equal(files[0][j], files[1][j]) {
					t.Errorf("%s differs between two identical runs", name)
				}
			}
		})
	}
}
