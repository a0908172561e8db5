//go:build cgo && !noxgboost

package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mirage-hpc/mirage/features"
)

func TestTrain_JSON(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "s.parquet")
	r := rand.New(rand.NewPCG(1, 1))
	s := features.Samples{Names: []string{"a", "b"}, Features: make([][]float64, 2)}
	for w := range 30 {
		for p := range 4 {
			s.WindowID = append(s.WindowID, int32(w))
			s.WindowStart = append(s.WindowStart, int64(w)*14400)
			s.ChainNodes = append(s.ChainNodes, 1)
			s.ProbeTime = append(s.ProbeTime, int64(w)*14400+int64(p))
			a, b := r.Float64(), r.Float64()
			s.Features[0] = append(s.Features[0], a)
			s.Features[1] = append(s.Features[1], b)
			s.LabelRSec = append(s.LabelRSec, int64(a*7200-3600))
			s.LabelWaitSec = append(s.LabelWaitSec, 0)
		}
	}
	meta := features.FileMeta{Protocol: "test", Options: map[string]any{"warmup": 3600e9, "workload": 3600e9}}
	if err := features.WriteParquet(samples, &s, meta); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "model")
	stdout, stderr, code := run(t, "train", "--model", "forest", "--samples", samples, "-o", out, "--cv", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum trainSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if sum.Model != "forest" || sum.Rows != 120 || sum.CV == nil || sum.CV.Folds != 3 {
		t.Errorf("summary = %+v", sum)
	}
	for _, f := range []string{"model.json", "manifest.json", "cv.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if _, e, code := run(t, "train", "--model", "tree", "--samples", samples, "-o", out); code != 3 {
		t.Errorf("bad --model: exit %d, want 3 (usage): %s", code, e)
	}
}
