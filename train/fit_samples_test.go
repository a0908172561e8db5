package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mirage-hpc/mirage/features"
)

// TestFitSamples: FitSamples on a samples file writes the bytes Run writes
// on the samples read from it, and an error about the samples' contents
// names the file.
func TestFitSamples(t *testing.T) {
	dir := t.TempDir()
	s, _ := synth()
	path := filepath.Join(dir, "s.parquet")
	if err := features.WriteParquet(path, s, features.FileMeta{Protocol: "test",
		Options: map[string]any{"warmup": 12 * time.Hour, "workload": 0}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{Params: DefaultParams(KindXGBoost), K: 0}
	opts.Params.Rounds, opts.Params.EarlyStopping, opts.Params.ValidShare = 5, 0, 0
	t.Run("OK", func(t *testing.T) {
		viaFile := filepath.Join(dir, "file")
		if _, err := FitSamples(ctx, path, viaFile, opts); err != nil {
			t.Fatal(err)
		}
		rs, meta, err := ReadSamples(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		viaRun := filepath.Join(dir, "run")
		if _, err := Run(ctx, rs, meta, viaRun, opts); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{ModelFile, ManifestFile} {
			a, err1 := os.ReadFile(filepath.Join(viaFile, f))
			b, err2 := os.ReadFile(filepath.Join(viaRun, f))
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: FitSamples and Run differ (%v, %v)", f, err1, err2)
			}
		}
	})
	t.Run("ErrSamples", func(t *testing.T) {
		_, err := FitSamples(ctx, path, filepath.Join(dir, "est"), Options{Target: TargetEstimate})
		if !errors.Is(err, ErrSamples) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("estimate without its column: err = %v, want ErrSamples naming %s", err, path)
		}
	})
}
