package pipelines_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
	"github.com/mirage-hpc/mirage/train/modeltest"
	"github.com/mirage-hpc/mirage/train/xgboost"
)

// TestRun_ShardsRuntimeEstimate: an evaluate stage with a
// runtime-estimate:DIR policy, whose run-time predictions come from the
// trace (evaluate.BindTrace), run as shards and merged writes the
// metrics.json and windows.csv one whole run writes.
func TestRun_ShardsRuntimeEstimate(t *testing.T) {
	s, tr, dir, _ := runtimeEstimateStudy(t, 3)
	step := func(out string, shards, shard int, merge bool) pipelines.StageResult {
		t.Helper()
		return onlyStage(t, s, "evaluate", pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2,
			Shards: shards, Shard: shard, Merge: merge})
	}
	whole := step(filepath.Join(dir, "whole"), 0, 0, false)
	const n = 2
	sharded := filepath.Join(dir, "sharded")
	for i := range n {
		step(sharded, n, i, false)
	}
	merged := step(sharded, n, 0, true)
	if merged.Key != whole.Key {
		t.Fatalf("sharded evaluate key %s, whole %s", merged.Key, whole.Key)
	}
	for _, f := range []string{"metrics.json", "windows.csv"} {
		a, b := readFile(t, filepath.Join(merged.Dir, f)), readFile(t, filepath.Join(whole.Dir, f))
		if !bytes.Contains(b, []byte("runtime-estimate:")) {
			t.Errorf("whole %s: no runtime-estimate policy", f)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("evaluate/%s: sharded and whole differ:\n%s", f, firstDiff(string(a), string(b)))
		}
	}
}

// TestRun_PolicyDirKeyed: the evaluation's cache key follows the files of
// a policy's model directory, not only its path: after a file of the
// run-time model changes in place, evaluate is no longer a cache hit, and
// its key differs.
func TestRun_PolicyDirKeyed(t *testing.T) {
	s, tr, dir, rt := runtimeEstimateStudy(t, 1)
	out := filepath.Join(dir, "out")
	evaluate := func(dry bool) pipelines.StageResult {
		t.Helper()
		return onlyStage(t, s, "evaluate", pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2, DryRun: dry})
	}
	first := evaluate(false)
	if again := evaluate(true); !again.Cached || again.Key != first.Key {
		t.Fatalf("unchanged model: cached %v, key %s, want a hit of %s", again.Cached, again.Key, first.Key)
	}
	png := filepath.Join(rt, "calibration.png") // read by nothing that evaluates
	b := readFile(t, png)
	if err := os.WriteFile(png, append(b, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	// A changed file alone fails the model's seal: the stage refuses it.
	_, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2, DryRun: true, Only: "evaluate"})
	if !errors.Is(err, train.ErrDigest) || !strings.Contains(err.Error(), "calibration.png") {
		t.Fatalf("evaluate with a changed file of its policy's model: %v; want train.ErrDigest naming calibration.png", err)
	}
	modeltest.Reseal(t, rt) // as a model written again would be
	if changed := evaluate(true); changed.Cached || changed.Key == first.Key {
		t.Errorf("a file of the policy's model changed: cached %v, key %s (was %s), want a new key", changed.Cached, changed.Key, first.Key)
	}
}

// runtimeEstimateStudy is smallStudy(valWindows) without models (so
// evaluate reads only the trace) and with the policies reactive and
// runtime-estimate:RT, RT a small run-time model trained on smallTrace in
// dir. It skips without libxgboost.
func runtimeEstimateStudy(t *testing.T, valWindows int) (s *pipelines.Study, tr, dir, rt string) {
	t.Helper()
	if !xgboost.Available {
		t.Skip("skipping: libxgboost not linked (the run-time model is XGBoost)")
	}
	dir = t.TempDir()
	tr = smallTrace(t, dir)
	s = smallStudy(valWindows)
	s.Models = nil
	rt = smallRuntimeModel(t, s, tr, filepath.Join(dir, "rt"))
	s.Policies = []string{"reactive", "runtime-estimate:" + rt}
	return s, tr, dir, rt
}

// smallRuntimeModel trains a small run-time model (jobruntime.Train) on
// the training period of s into dir, as train --model runtime --study
// does with --threads 1 --cv 3 --rounds 10, and one approach.
func smallRuntimeModel(t *testing.T, s *pipelines.Study, tr, dir string) string {
	t.Helper()
	trainP, valP, err := s.Protocols()
	if err != nil {
		t.Fatal(err)
	}
	from, to, err := jobruntime.ProtocolPeriod(trainP)
	if err != nil {
		t.Fatal(err)
	}
	valFrom, _, err := jobruntime.ProtocolPeriod(valP)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := trace.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := jobruntime.DefaultParams()
	p.Rounds, p.EarlyStopping, p.Threads = 10, 5, 1
	o := jobruntime.Options{TrainFrom: from, TrainTo: min(to, valFrom), Zone: trainP.TZ, K: 3, GapSec: 86400,
		Approaches: []jobruntime.Approach{jobruntime.ApproachSoftprob}, Params: p, Version: "test"}
	if _, err := jobruntime.Train(context.Background(), jobs, dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}
