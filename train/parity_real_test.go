//go:build cgo && !noxgboost

package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/train/xgboost"
)

// TestParity_RealSamples compares the pure-Go evaluator with libxgboost on
// a trained artifact and its samples, named by MIRAGE_PARITY_MODEL (a
// model directory) and MIRAGE_PARITY_SAMPLES (a samples file).
func TestParity_RealSamples(t *testing.T) {
	dir, path := os.Getenv("MIRAGE_PARITY_MODEL"), os.Getenv("MIRAGE_PARITY_SAMPLES")
	if dir == "" || path == "" {
		t.Skip("set MIRAGE_PARITY_MODEL and MIRAGE_PARITY_SAMPLES to run")
	}
	s, meta, err := ReadSamples(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Predict(s, meta.SchemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := os.ReadFile(filepath.Join(dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := xgboost.LoadBooster(buf)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	all := make([]int, s.Len())
	for i := range all {
		all[i] = i
	}
	dm, err := NewData(s).dmatrix(all)
	if err != nil {
		t.Fatal(err)
	}
	defer dm.Close()
	want, err := b.Predict(dm, 0)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
	}
	if worst > 1e-6 {
		t.Fatalf("max |pure Go - libxgboost| = %g over %d rows", worst, len(want))
	}
	pythonCheck(t, dir, s, want)
	t.Logf("%d rows, max difference %g", len(want), worst)
}
