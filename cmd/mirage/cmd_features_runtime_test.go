//go:build cgo && !noxgboost

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/jobruntime"
	"github.com/mirage-hpc/mirage/train/modeltest"
)

// protocolArgs are a small ls6 protocol on the synthetic trace of
// runtimeModel.
var protocolArgs = []string{"--protocol", "ls6", "--start", "2022-11-01T00:00:00", "--windows", "3", "--interval", "4h"}

// runtimeModel synthesises a 50-day trace in dir, trains a small run-time
// model on it and returns the trace and the model directory.
func runtimeModel(t *testing.T, dir string) (tr, rt string) {
	t.Helper()
	in, tr, rt := filepath.Join(dir, "s.sacct"), filepath.Join(dir, "t.parquet"), filepath.Join(dir, "rt")
	steps := [][]string{
		{"synth", "--jobs", "1500", "--partition-nodes", "16", "--seed", "3", "-o", in},
		{"ingest", "--tz", "America/Chicago", "-o", tr, in},
		append([]string{"train", "--model", "runtime", "--trace", tr, "-o", rt, "--threads", "1", "--cv", "3", "--rounds", "10"}, protocolArgs...),
	}
	for _, args := range steps {
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), code, stderr)
		}
	}
	return tr, rt
}

func buildSamples(t *testing.T, tr, out string, extra ...string) (*features.Samples, train.SamplesMeta) {
	t.Helper()
	args := append([]string{"features", "build", "--trace", tr, "--chain-nodes", "1,2", "--probes", "7", "-o", out}, protocolArgs...)
	if _, stderr, code := run(t, append(args, extra...)...); code != 0 {
		t.Fatalf("features build %v: exit %d: %s", extra, code, stderr)
	}
	s, meta, err := train.ReadSamples(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	return s, meta
}

func TestFeaturesBuild_RuntimeModel(t *testing.T) {
	dir := t.TempDir()
	tr, rt := runtimeModel(t, dir)
	m, err := jobruntime.ReadManifest(rt)
	if err != nil {
		t.Fatal(err)
	}
	without, wm := buildSamples(t, tr, filepath.Join(dir, "without.parquet"))
	t.Run("Absent", func(t *testing.T) {
		if d := cmp.Diff(features.Names(), without.Names); d != "" || wm.RuntimeModel != "" || wm.RuntimeSHA256 != "" {
			t.Errorf("without --runtime-model: run-time model %q %q, names (-want +got):\n%s", wm.RuntimeModel, wm.RuntimeSHA256, d)
		}
	})
	t.Run("Present", func(t *testing.T) {
		with, meta := buildSamples(t, tr, filepath.Join(dir, "with.parquet"), "--runtime-model", rt)
		if d := cmp.Diff(append(features.Names(), features.ModelEstimateName), with.Names); d != "" {
			t.Errorf("names (-want +got):\n%s", d)
		}
		if meta.RuntimeModel != rt || meta.RuntimeSHA256 != m.Models[0].SHA256 {
			t.Errorf("metadata names run-time model %q sha256 %q, want %q %q", meta.RuntimeModel, meta.RuntimeSHA256, rt, m.Models[0].SHA256)
		}
		if d := cmp.Diff(without.Features, with.Features[:features.NumFeatures()]); d != "" {
			t.Errorf("the other columns change:\n%s", d)
		}
	})
	t.Run("ForecastDir", func(t *testing.T) {
		fc := filepath.Join(dir, "forecast")
		if err := evaluate.WriteForecastManifest(fc, &evaluate.ForecastManifest{Kind: evaluate.ForecastKind, Runtime: rt, RuntimeSHA256: m.Models[0].SHA256}); err != nil {
			t.Fatal(err)
		}
		_, meta := buildSamples(t, tr, filepath.Join(dir, "fc.parquet"), "--runtime-model", fc)
		if meta.RuntimeModel != rt || meta.RuntimeSHA256 != m.Models[0].SHA256 {
			t.Errorf("metadata names run-time model %q sha256 %q, want the forecast's %q %q", meta.RuntimeModel, meta.RuntimeSHA256, rt, m.Models[0].SHA256)
		}
	})
	t.Run("Study", func(t *testing.T) {
		// --study reads the study's features.runtime_model (relative to
		// the study file) when --runtime-model is not given.
		study := filepath.Join(dir, "s.yaml")
		y := `name: s
trace: {zone: America/Chicago}
cluster: {profile: ls6}
chains: {nodes: [1]}
periods:
  train: {start: "2022-11-01T00:00:00", windows: 3, stride: 4h}
  validation: {start: "2022-11-20T00:00:00", windows: 1, stride: 4h}
  warmup: 48h
  workload: 120h
  mode: warm
grid: {probes: "7"}
features: {runtime_model: rt}
`
		if err := os.WriteFile(study, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "study.parquet")
		if _, stderr, code := run(t, "features", "build", "--trace", tr, "--study", study, "-o", out); code != 0 {
			t.Fatalf("features build --study: exit %d: %s", code, stderr)
		}
		s, meta, err := train.ReadSamples(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		if s.Names[len(s.Names)-1] != features.ModelEstimateName || meta.RuntimeModel != rt || meta.RuntimeSHA256 != m.Models[0].SHA256 {
			t.Errorf("features build --study: last column %s, run-time model %q %q; want %s, %q %q",
				s.Names[len(s.Names)-1], meta.RuntimeModel, meta.RuntimeSHA256, features.ModelEstimateName, rt, m.Models[0].SHA256)
		}
	})
	t.Run("ErrNotAModel", func(t *testing.T) {
		_, stderr, code := run(t, append([]string{"features", "build", "--trace", tr, "--runtime-model", dir, "-o", filepath.Join(dir, "x.parquet")}, protocolArgs...)...)
		if code != 3 {
			t.Errorf("exit %d, want 3 (usage): %s", code, stderr)
		}
	})
}

// TestEvaluate_RuntimeFeatureModel trains a forest on samples with the
// run-time model column and replays it: evaluate computes the column
// with the manifest's run-time model, and refuses a model whose run-time
// model changed or is gone.
func TestEvaluate_RuntimeFeatureModel(t *testing.T) {
	dir := t.TempDir()
	tr, rt := runtimeModel(t, dir)
	samples := filepath.Join(dir, "with.parquet")
	buildSamples(t, tr, samples, "--runtime-model", rt)
	model := filepath.Join(dir, "forest")
	if _, stderr, code := run(t, "train", "--model", "forest", "--samples", samples, "-o", model, "--cv", "0", "--trees", "5"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	a, err := train.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	if a.Manifest.RuntimeModel != rt || a.Manifest.RuntimeModelSHA256 == "" {
		t.Fatalf("manifest's run-time model %q sha256 %q, want %q", a.Manifest.RuntimeModel, a.Manifest.RuntimeModelSHA256, rt)
	}
	evaluate := func(model string) (string, int) {
		args := append([]string{"evaluate", "--trace", tr, "--policy", "reactive,forest:" + model, "--workers", "1", "-o", filepath.Join(dir, "ev")}, protocolArgs...)
		_, stderr, code := run(t, args...)
		return stderr, code
	}
	t.Run("OK", func(t *testing.T) {
		if stderr, code := evaluate(model); code != 0 {
			t.Fatalf("evaluate: exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "ev", "windows.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "forest:"+model) {
			t.Errorf("windows.csv has no row of forest:%s", model)
		}
	})
	edit := func(t *testing.T, name string, f func(m map[string]any)) string {
		t.Helper()
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(model, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		modeltest.Edit(t, to, f) // an edit on purpose: sealed again
		return to
	}
	t.Run("ErrDigestMismatch", func(t *testing.T) {
		m := edit(t, "changed", func(m map[string]any) { m["runtime_model_sha256"] = strings.Repeat("0", 64) })
		stderr, code := evaluate(m)
		if code != 3 || !strings.Contains(stderr, "run-time model") || !strings.Contains(stderr, strings.Repeat("0", 64)) {
			t.Errorf("exit %d, want 3 (usage) naming the run-time model's digest: %s", code, stderr)
		}
	})
	t.Run("ErrMissing", func(t *testing.T) {
		m := edit(t, "missing", func(m map[string]any) { m["runtime_model"] = filepath.Join(dir, "gone") })
		stderr, code := evaluate(m)
		if code != 3 || !strings.Contains(stderr, "run-time model") {
			t.Errorf("exit %d, want 3 (usage) naming the run-time model: %s", code, stderr)
		}
	})
	t.Run("Predict", func(t *testing.T) {
		// predict takes the samples' column only from the model's own
		// run-time model (the samples' metadata names it).
		predict := func(model string) (string, int) {
			_, stderr, code := run(t, "predict", "--model", model, "--samples", samples, "-o", filepath.Join(dir, "p.parquet"))
			return stderr, code
		}
		if stderr, code := predict(model); code != 0 {
			t.Fatalf("predict: exit %d: %s", code, stderr)
		}
		m := edit(t, "changed-predict", func(m map[string]any) { m["runtime_model_sha256"] = strings.Repeat("1", 64) })
		if stderr, code := predict(m); code != 2 || !strings.Contains(stderr, features.ModelEstimateName) || !strings.Contains(stderr, strings.Repeat("1", 64)) {
			t.Errorf("predict with another run-time model: exit %d, want 2 naming the column and both digests: %s", code, stderr)
		}
	})
	t.Run("ErrFeatures", func(t *testing.T) {
		// Without a run-time model the model's column cannot be computed.
		m := edit(t, "nort", func(m map[string]any) { delete(m, "runtime_model"); delete(m, "runtime_model_sha256") })
		stderr, code := evaluate(m)
		if code == 0 || !strings.Contains(stderr, features.ModelEstimateName) {
			t.Errorf("exit %d, want an error naming %s: %s", code, features.ModelEstimateName, stderr)
		}
	})
}

// TestFeatureRunTimes_Causal checks the real run-time model's medians that
// the column plans with: after the model's training period, changing the
// run times of the jobs that end after t leaves the median of every job
// submitted by t, hence the column at t, unchanged (jobs of the training
// period get out-of-fold encodings from the training labels, which are
// not causal in t: see features/README.md).
func TestFeatureRunTimes_Causal(t *testing.T) {
	dir := t.TempDir()
	tr, rt := runtimeModel(t, dir)
	m, err := jobruntime.ReadManifest(rt)
	if err != nil {
		t.Fatal(err)
	}
	tjobs, err := trace.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := features.LookupProtocol("ls6")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(m.TrainPeriod[1]+5*86400, 0)
	alt := slices.Clone(tjobs)
	changed := 0
	for i := range alt {
		j := &alt[i]
		if !j.Start.IsZero() && j.End.After(at) {
			end := at.Add(time.Second + j.End.Sub(at)/3)
			if !end.After(j.Start) {
				end = j.Start.Add(time.Second)
			}
			j.End = end
			changed++
		}
	}
	medians := func(tj []trace.Job) ([]sim.Job, []int64) {
		sj, _, err := p.Prepare(tj)
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate.FeatureRunTimes(rt, m.Models[0].SHA256, tj, sj)
		if err != nil {
			t.Fatal(err)
		}
		return sj, r.MedianSec
	}
	sj, want := medians(tjobs)
	sjAlt, got := medians(alt)
	if changed < 20 || len(sj) != len(sjAlt) {
		t.Fatalf("%d jobs changed, %d and %d simulator jobs", changed, len(sj), len(sjAlt))
	}
	known, differ := 0, 0
	for i := range sj {
		if sj[i].Submit <= at.Unix() {
			known++
			if got[i] != want[i] {
				t.Fatalf("job %s submitted at %d: median %d s with the real future, %d s with another", sj[i].Name, sj[i].Submit, want[i], got[i])
			}
		} else if got[i] != want[i] {
			differ++
		}
	}
	if known < 100 || differ == 0 {
		t.Errorf("%d jobs submitted by t, %d later medians changed: the test cannot fail", known, differ)
	}
	if _, err := evaluate.FeatureRunTimes(rt, strings.Repeat("0", 64), tjobs, sj); !errors.Is(err, evaluate.ErrRuntimeModel) {
		t.Errorf("FeatureRunTimes with another digest: %v, want ErrRuntimeModel", err)
	}
}
