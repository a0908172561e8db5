package dqn_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// writeWithCurve writes a DQN model directory with every file (weights,
// ONNX, curve) and returns it.
func writeWithCurve(t *testing.T, sizes []int, init func(*dqn.MLP)) string {
	t.Helper()
	fs := features.Schema()
	net, err := dqn.NewMLP(append([]int{len(fs)}, sizes...), 1)
	if err != nil {
		t.Fatal(err)
	}
	if init != nil {
		init(net)
	}
	m := &dqn.Manifest{Features: fs, FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: dqn.NewStats(nil, len(fs))}
	dir := filepath.Join(t.TempDir(), "dqn")
	if err := dqn.WriteArtifact(dir, net, []byte("episode,return\n0,-1.5\n"), m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "dqn")
	modeltest.CopyDir(t, from, to)
	return to
}

// allocOpen opens dir and returns the error and the bytes allocated.
func allocOpen(dir string) (error, uint64, time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	began := time.Now()
	_, err := dqn.Open(dir)
	took := time.Since(began)
	runtime.ReadMemStats(&after)
	return err, after.TotalAlloc - before.TotalAlloc, took
}

// TestOpen_HostileArchitecture: layer sizes that would allocate
// gigabytes, or that do not fit the weights, are refused before anything
// of their size is read or allocated.
func TestOpen_HostileArchitecture(t *testing.T) {
	dir := writeWithCurve(t, []int{4, dqn.NumActions}, nil)
	nf := len(features.Schema())
	for name, layers := range map[string][]int{
		"Wide":       {nf, 2_000_000_000, 2},
		"Negative":   {nf, -4, 2},
		"Deep":       append(append([]int{nf}, make([]int, 40)...), 2),
		"Params":     {nf, 10000, 10000, 2},
		"Misshapen":  {nf, 5, 2},
		"OneLayer":   {nf},
		"NotActions": {nf, 4, 3},
	} {
		t.Run(name, func(t *testing.T) {
			d := copyDir(t, dir)
			modeltest.Edit(t, d, func(m map[string]any) {
				m["architecture"].(map[string]any)["layers"] = layers
			})
			err, alloc, took := allocOpen(d)
			if !errors.Is(err, train.ErrBadModel) {
				t.Fatalf("Open: %v; want ErrBadModel", err)
			}
			if alloc > 8<<20 || took > 2*time.Second {
				t.Errorf("Open allocated %d bytes in %v refusing layers %v", alloc, took, layers[:min(len(layers), 4)])
			}
		})
	}
}

// TestOpen_LargeWeightsNotRead: a model.safetensors grown to 1 GiB
// (sparse) is refused by its size, not read: with the manifest's size
// (ErrDigest) or with a manifest claiming the size (more than the
// architecture's weights can take: ErrBadModel).
func TestOpen_LargeWeightsNotRead(t *testing.T) {
	dir := writeWithCurve(t, []int{4, dqn.NumActions}, nil)
	const size = 1 << 30
	for name, want := range map[string]error{"SizeChanged": train.ErrDigest, "SizeClaimed": train.ErrBadModel} {
		t.Run(name, func(t *testing.T) {
			d := copyDir(t, dir)
			if err := os.Truncate(filepath.Join(d, dqn.WeightsFile), size); err != nil {
				t.Skipf("no sparse file: %v", err)
			}
			if want == train.ErrBadModel {
				modeltest.EditManifest(t, d, func(m map[string]any) {
					m["files"].(map[string]any)[dqn.WeightsFile].(map[string]any)["size"] = size
				})
			}
			err, alloc, took := allocOpen(d)
			if !errors.Is(err, want) || !strings.Contains(err.Error(), dqn.WeightsFile) {
				t.Fatalf("Open: %v; want %v naming %s", err, want, dqn.WeightsFile)
			}
			if alloc > 8<<20 || took > 2*time.Second {
				t.Errorf("Open allocated %d bytes in %v refusing a %d-byte %s", alloc, took, size, dqn.WeightsFile)
			}
		})
	}
}

// TestOpen_TamperedFiles: a byte flipped in any file of the directory,
// or an edited operating point, is refused naming the file.
func TestOpen_TamperedFiles(t *testing.T) {
	dir := writeWithCurve(t, []int{4, dqn.NumActions}, nil)
	if _, err := dqn.Open(dir); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{dqn.WeightsFile, dqn.ONNXFile, dqn.CurveFile, dqn.ManifestFile} {
		t.Run(file, func(t *testing.T) {
			d := copyDir(t, dir)
			p := filepath.Join(d, file)
			b, _ := os.ReadFile(p)
			if file == dqn.ManifestFile {
				b = bytes.Replace(b, []byte(`"seed": 0`), []byte(`"seed": 1`), 1)
			} else {
				b[len(b)/2] ^= 1
			}
			os.WriteFile(p, b, 0o644)
			if _, err := dqn.Open(d); !errors.Is(err, train.ErrDigest) || !strings.Contains(err.Error(), file) {
				t.Errorf("Open: %v; want ErrDigest naming %s", err, file)
			}
		})
	}
}

// TestOpen_Standardisation: a standard deviation of 0 (every
// standardised value NaN or infinite) is refused when the model is
// loaded, naming the feature's index.
func TestOpen_Standardisation(t *testing.T) {
	dir := writeWithCurve(t, []int{4, dqn.NumActions}, nil)
	for name, edit := range map[string]func(s map[string]any){
		"StdZero":     func(s map[string]any) { s["std"].([]any)[7] = 0 },
		"StdNegative": func(s map[string]any) { s["std"].([]any)[7] = -1 },
		"MeanShort":   func(s map[string]any) { s["mean"] = s["mean"].([]any)[1:] },
		"ClipNeg":     func(s map[string]any) { s["clip"] = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			d := copyDir(t, dir)
			modeltest.Edit(t, d, func(m map[string]any) { edit(m["standardisation"].(map[string]any)) })
			if _, err := dqn.Open(d); !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), "standardisation") {
				t.Errorf("Open: %v; want ErrBadModel naming the standardisation", err)
			}
		})
	}
}

// TestModel_DecideNonFinite: finite weights whose products overflow give
// infinite Q-values, whose advantage is NaN; Decide refuses to decide
// (ErrBadModel) where SubmitAt would silently wait forever.
func TestModel_DecideNonFinite(t *testing.T) {
	deep := []int{4, 4, 4, 4, 4, 4, 4, 4, 4, dqn.NumActions}
	dir := writeWithCurve(t, deep, func(n *dqn.MLP) {
		for _, p := range n.Params() {
			for i := range p {
				p[i] = 3e38
			}
		}
	})
	m, err := dqn.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(features.Schema()))
	q := m.Q(nil, x)
	if !math.IsInf(q[0], 1) {
		t.Fatalf("Q = %v: the test wants an overflow", q)
	}
	if _, err := m.Decide(x, 1); !errors.Is(err, train.ErrBadModel) {
		t.Errorf("Decide: %v; want ErrBadModel", err)
	}
	if _, _, err := m.Advantage(x); !errors.Is(err, train.ErrBadModel) {
		t.Errorf("Advantage: %v; want ErrBadModel", err)
	}
}

// TestOpen_NonFiniteWeights: NaN in the weights file is refused at load.
func TestOpen_NonFiniteWeights(t *testing.T) {
	dir := writeWithCurve(t, []int{4, dqn.NumActions}, func(n *dqn.MLP) { n.W[0][3] = math.NaN() })
	if _, err := dqn.Open(dir); !errors.Is(err, train.ErrBadModel) || !strings.Contains(err.Error(), "l0.weight") {
		t.Errorf("Open: %v; want ErrBadModel naming l0.weight", err)
	}
}
