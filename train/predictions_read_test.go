package train_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

func TestReadPredictions(t *testing.T) {
	write := func(labels bool) string {
		s := &features.Samples{WindowID: []int32{0, 1}, ChainNodes: []int32{1, 8}, ProbeTime: []int64{1_700_000_000, 1_700_043_200}}
		if labels {
			s.LabelRSec = []int64{3600, -7200}
		}
		path := filepath.Join(t.TempDir(), "p.parquet")
		if err := train.WritePredictions(path, s, []float32{1.5, -1}, "models/forest sha256:abc"); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Run("OK", func(t *testing.T) {
		p, err := train.ReadPredictions(context.Background(), write(true))
		if err != nil {
			t.Fatal(err)
		}
		if p.ModelDir != "models/forest" || p.Model != "models/forest sha256:abc" || len(p.ActualH) != 2 ||
			p.ActualH[0] != 1 || p.ActualH[1] != -2 || p.PredH[0] != 1.5 || p.PredH[1] != -1 {
			t.Fatalf("read %+v", p)
		}
	})
	t.Run("ErrNoLabels", func(t *testing.T) {
		if _, err := train.ReadPredictions(context.Background(), write(false)); err == nil || !strings.Contains(err.Error(), "label_r_sec") {
			t.Fatalf("err = %v, want a missing label_r_sec", err)
		}
	})
}
