package pipelines_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/pipelines"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// TestRun_RuntimeModelFeatures: with features.runtime_model (a path
// relative to the study file), features-train and features-validation
// write samples whose last column is the run-time column and whose
// metadata names the run-time model (its absolute directory and model
// digest); features-train run as shards and merged writes the same
// samples.parquet, byte for byte, under the same key.
func TestRun_RuntimeModelFeatures(t *testing.T) {
	s, tr, dir, rt := runtimeModelStudy(t, 2)
	sha, err := jobruntime.ModelDigest(rt)
	if err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "whole")
	for _, stage := range []string{"features-train", "features-validation"} {
		r := onlyStage(t, s, stage, pipelines.RunOptions{Trace: tr, Out: whole, Version: "test", Workers: 2})
		samples, meta, err := train.ReadSamples(context.Background(), filepath.Join(r.Dir, "samples.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if want := append(features.Names(), features.ModelEstimateName); !slices.Equal(samples.Names, want) {
			t.Errorf("%s: features %v\nwant %v", stage, samples.Names, want)
		}
		if meta.RuntimeModel != rt || meta.RuntimeSHA256 != sha {
			t.Errorf("%s: run-time model %q sha256 %q, want %q %q", stage, meta.RuntimeModel, meta.RuntimeSHA256, rt, sha)
		}
		col := samples.Features[len(samples.Features)-1]
		if samples.Len() == 0 || !slices.ContainsFunc(col, func(v float64) bool { return v != 0 }) {
			t.Errorf("%s: run-time column of %d rows all zero", stage, samples.Len())
		}
	}

	want := onlyStage(t, s, "features-train", pipelines.RunOptions{Trace: tr, Out: whole, Version: "test", DryRun: true})
	sharded := filepath.Join(dir, "sharded")
	const n = 3
	for i := range n {
		onlyStage(t, s, "features-train", pipelines.RunOptions{Trace: tr, Out: sharded, Version: "test", Workers: 2, Shards: n, Shard: i})
	}
	got := onlyStage(t, s, "features-train", pipelines.RunOptions{Trace: tr, Out: sharded, Version: "test", Workers: 2, Shards: n, Merge: true})
	if got.Key != want.Key {
		t.Fatalf("sharded features-train key %s, whole %s", got.Key, want.Key)
	}
	a, b := readFile(t, filepath.Join(got.Dir, "samples.parquet")), readFile(t, filepath.Join(want.Dir, "samples.parquet"))
	if !bytes.Equal(a, b) {
		t.Errorf("features-train/samples.parquet: sharded (%d bytes) and whole (%d bytes) differ", len(a), len(b))
	}
}

// TestRun_RuntimeModelStudy: a whole study with features.runtime_model
// runs (training, predictions and evaluation check the run-time model of
// the samples' column), and its trained model's manifest names the
// run-time model.
func TestRun_RuntimeModelStudy(t *testing.T) {
	s, tr, dir, rt := runtimeModelStudy(t, 2)
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: filepath.Join(dir, "out"), Version: "test", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res, func(r pipelines.StageResult) bool { return r.Name == "train-forest-r" })
	if i < 0 {
		t.Fatalf("no train-forest-r stage in %v", res)
	}
	m, err := train.ReadManifest(filepath.Join(res[i].Dir, "forest-r"))
	if err != nil {
		t.Fatal(err)
	}
	if m.RuntimeModel != rt {
		t.Errorf("forest-r manifest: run-time model %q, want %q", m.RuntimeModel, rt)
	}
}

// TestRun_RuntimeModelKeyed: the features stages' keys follow the
// run-time model's model digest: a study with features.runtime_model
// keys them apart from one without, and after the model file changes (a
// run-time model trained again into the same directory) neither is a
// cache hit any more, and each has a new key.
func TestRun_RuntimeModelKeyed(t *testing.T) {
	s, tr, dir, rt := runtimeModelStudy(t, 1)
	out := filepath.Join(dir, "out")
	stages := []string{"features-train", "features-validation"}
	keys := func(s *pipelines.Study) map[string]pipelines.StageResult {
		t.Helper()
		res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]pipelines.StageResult{}
		for _, r := range res {
			m[r.Name] = r
		}
		return m
	}
	plain := *s
	plain.Features = nil
	without, first := keys(&plain), keys(s)
	for _, st := range stages {
		onlyStage(t, s, st, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Workers: 2})
		if first[st].Key == "" || first[st].Key == without[st].Key {
			t.Errorf("%s: key %q with a run-time model, %q without: want different keys", st, first[st].Key, without[st].Key)
		}
	}
	for st, r := range keys(s) {
		if slices.Contains(stages, st) && (!r.Cached || r.Key != first[st].Key) {
			t.Fatalf("%s: unchanged model: cached %v, key %s, want a hit of %s", st, r.Cached, r.Key, first[st].Key)
		}
	}
	retrain(t, rt)
	changed := keys(s)
	for _, st := range stages {
		if r := changed[st]; r.Cached || r.Key == first[st].Key {
			t.Errorf("%s: the run-time model's model file changed: cached %v, key %s (was %s), want a new key", st, r.Cached, r.Key, first[st].Key)
		}
	}
}

// TestRun_RuntimeModelInvalid: a features.runtime_model that is not a
// run-time model or a forecast directory is refused before any work (no
// output directory), with an error wrapping ErrStudy that names the
// field.
func TestRun_RuntimeModelInvalid(t *testing.T) {
	dir := t.TempDir()
	tr := smallTrace(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		Name, Path string
	}{
		{"ErrMissing", filepath.Join(dir, "missing")},
		{"ErrEmptyDir", filepath.Join(dir, "empty")},
		{"ErrFile", tr},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s := smallStudy(1)
			s.Features = &pipelines.FeaturesSpec{RuntimeModel: tt.Path}
			out := filepath.Join(dir, "out-"+tt.Name)
			_, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test"})
			if !errors.Is(err, pipelines.ErrStudy) || !strings.Contains(err.Error(), "features.runtime_model") {
				t.Fatalf("error %v\nwant one wrapping %v that names features.runtime_model", err, pipelines.ErrStudy)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output directory %s made before the study was refused (stat: %v)", out, err)
			}
		})
	}
}

// runtimeModelStudy is runtimeEstimateStudy(valWindows) with predictions
// of a forest of r (so it has a features-validation stage) and
// features.runtime_model "rt", relative to the study file dir/study.yaml
// it is loaded from. It returns rt's absolute directory.
func runtimeModelStudy(t *testing.T, valWindows int) (s *pipelines.Study, tr, dir, rt string) {
	t.Helper()
	s, tr, dir, rt = runtimeEstimateStudy(t, valWindows)
	s.Models = []pipelines.ModelSpec{{Kind: "forest", Target: "r"}}
	s.Predictions = true
	s.Features = &pipelines.FeaturesSpec{RuntimeModel: "rt"}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = pipelines.Load(path, b); err != nil {
		t.Fatal(err)
	}
	if rt, err = filepath.Abs(rt); err != nil {
		t.Fatal(err)
	}
	return s, tr, dir, rt
}

// onlyStage runs only s's stage with o and returns its result.
func onlyStage(t *testing.T, s *pipelines.Study, stage string, o pipelines.RunOptions) pipelines.StageResult {
	t.Helper()
	o.Only = stage
	res, err := pipelines.Run(context.Background(), s, o)
	if err != nil {
		t.Fatalf("%s (shard %d of %d, merge %v, dry run %v): %v", stage, o.Shard, o.Shards, o.Merge, o.DryRun, err)
	}
	for _, r := range res {
		if r.Name == stage {
			return r
		}
	}
	t.Fatalf("no stage %s in %v", stage, res)
	return pipelines.StageResult{}
}

// retrain changes the first model file of the run-time model in rt and
// records its new digest in the manifest, as a model trained again into
// rt would.
func retrain(t *testing.T, rt string) {
	t.Helper()
	mpath := filepath.Join(rt, jobruntime.ManifestFile)
	var m map[string]any
	if err := json.Unmarshal(readFile(t, mpath), &m); err != nil {
		t.Fatal(err)
	}
	models, _ := m["models"].([]any)
	if len(models) == 0 {
		t.Fatalf("%s: no models", mpath)
	}
	f := models[0].(map[string]any)
	path := filepath.Join(rt, f["name"].(string))
	b := append(readFile(t, path), '\n')
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	f["sha256"] = hex.EncodeToString(sum[:])
	mb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mpath, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	modeltest.Reseal(t, rt)
}

// TestSlurmExecutor_RuntimeModel: the study the Slurm jobs read names
// the run-time model by its absolute path (the jobs' study file is
// elsewhere), and the features stages' keys are the local run's.
func TestSlurmExecutor_RuntimeModel(t *testing.T) {
	s, tr, dir, rt := runtimeModelStudy(t, 1)
	out := filepath.Join(dir, "out")
	local, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeSlurm{}
	exec, _ := pipelines.NewSlurmExecutor("mirage", fake.command)
	res, err := pipelines.Run(context.Background(), s, pipelines.RunOptions{Trace: tr, Out: out, Version: "test", Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if strings.HasPrefix(r.Name, "features-") && r.Key != local[i].Key {
			t.Errorf("%s: Slurm key %s, local %s", r.Name, r.Key, local[i].Key)
		}
	}
	copies, _ := filepath.Glob(filepath.Join(out, "slurm", "study-*.yaml"))
	if len(copies) != 1 {
		t.Fatalf("study copies %v", copies)
	}
	c, err := pipelines.Resolve(copies[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RuntimeModelPath(); got != rt {
		t.Errorf("the jobs' study reads run-time model %q, want %q", got, rt)
	}
}

// TestStudy_RuntimeModelPath: features.runtime_model loads from YAML,
// JSON and TOML, relative to the study file's directory; an absolute
// path is kept, and a study without it has none.
func TestStudy_RuntimeModelPath(t *testing.T) {
	base, text, err := pipelines.Builtin("ls6")
	if err != nil {
		t.Fatal(err)
	}
	if got := base.RuntimeModelPath(); got != "" {
		t.Errorf("ls6: run-time model %q, want none", got)
	}
	dir := filepath.Join("studies", "x")
	abs := filepath.Join(t.TempDir(), "rt")
	tests := []struct {
		Name, Path string
		Data       string
		Want       string
	}{
		{"YAMLRelative", "s.yaml", string(text) + "features:\n  runtime_model: models/rt\n", filepath.Join(dir, "models", "rt")},
		{"YAMLAbsolute", "s.yaml", string(text) + "features: {runtime_model: " + abs + "}\n", abs},
		{"JSON", "s.json", `{"name": "j", "trace": {"zone": "UTC"}, "chains": {"nodes": [1]},
			"periods": {"train": {"start": "2022-11-01T00:00:00", "windows": 1, "stride": "4h"},
			"validation": {"start": "2022-12-01T00:00:00", "windows": 1, "stride": "4h"}, "workload": "1h", "mode": "cold"},
			"grid": {"probes": "7"}, "features": {"runtime_model": "rt"}}`, filepath.Join(dir, "rt")},
		{"TOML", "s.toml", `name = "t"
[trace]
zone = "UTC"
[chains]
nodes = [1]
[periods]
workload = "1h"
mode = "cold"
[periods.train]
start = "2022-11-01T00:00:00"
windows = 1
stride = "4h"
[periods.validation]
start = "2022-12-01T00:00:00"
windows = 1
stride = "4h"
[grid]
probes = "7"
[features]
runtime_model = "rt"
`, filepath.Join(dir, "rt")},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			s, err := pipelines.Load(filepath.Join(dir, tt.Path), []byte(tt.Data))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.RuntimeModelPath(); got != tt.Want {
				t.Errorf("run-time model %q, want %q", got, tt.Want)
			}
		})
	}
}
