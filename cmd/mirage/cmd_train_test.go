//go:build cgo && !noxgboost

package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

func TestTrain_JSON(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "s.parquet")
	writeSamples(t, samples, []string{"a", "b"})
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
	if _, e, code := run(t, "train", "--samples", samples, "-o", out, "--objective", "l1"); code != 3 {
		t.Errorf("bad --objective: exit %d, want 3 (usage): %s", code, e)
	}
	if _, e, code := run(t, "train", "--samples", samples, "-o", out, "--device", "gpu"); code != 3 {
		t.Errorf("bad --device: exit %d, want 3 (usage): %s", code, e)
	}
}

func TestTrain_ParamsFromConfig(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "s.parquet")
	writeSamples(t, samples, []string{"a", "b"})
	cfg := filepath.Join(dir, "mirage.yaml")
	if err := os.WriteFile(cfg, []byte("train:\n  params:\n    max_depth: 3\n    trees: 7\n    objective: pseudohuber\n    huber_slope: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "model")
	if _, e, code := run(t, "--config", cfg, "train", "--samples", samples, "-o", out, "--cv", "0", "--trees", "5"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"max_depth": 3.0, "num_parallel_tree": 5.0, "objective": "reg:pseudohubererror", "huber_slope": 2.0, "device": "cpu"}
	for k, v := range want {
		if m.Params[k] != v {
			t.Errorf("params[%s] = %v, want %v", k, m.Params[k], v)
		}
	}
}

// writeSamples writes 30 windows x 4 probes of samples with features names.
func writeSamples(t *testing.T, path string, names []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	s := features.Samples{Names: names, Features: make([][]float64, 2)}
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
	if err := features.WriteParquet(path, &s, meta); err != nil {
		t.Fatal(err)
	}
}

// TestTrain_TargetsAndOperatingPoint trains each target with an overlap
// budget and checks the manifest's operating point, then the estimate's
// margin (which needs its feature) and the usage errors.
func TestTrain_TargetsAndOperatingPoint(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "s.parquet")
	writeSamples(t, samples, []string{"a", "b"})
	for _, target := range []string{"r", "interrupt", "cliff", "deadline", "wait", "stop"} {
		out := filepath.Join(dir, target)
		stdout, stderr, code := run(t, "train", "--model", "xgboost", "--target", target, "--rounds", "5", "--samples", samples,
			"-o", out, "--cv", "3", "--overlap-budget", "30m", "--json")
		if target == "wait" {
			if code != 2 || !strings.Contains(stderr, samples) || !strings.Contains(stderr, "p_remaining_sec") {
				t.Errorf("wait without p_remaining_sec: exit %d, want 2 naming the file and the feature: %s", code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", target, code, stderr)
		}
		var sum trainSummary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("%v: %s", err, stdout)
		}
		op := sum.OperatingPoint
		if sum.Target != target || op == nil || op.BudgetH != 0.5 || len(op.ByChain) != 1 {
			t.Fatalf("%s: summary %s", target, stdout)
		}
		if c := op.ByChain["1"]; c.WithinBudget && c.MeanOverlapH > 0.5 {
			t.Errorf("%s: chosen overlap %v over the 0.5 h budget", target, c.MeanOverlapH)
		}
		b, err := os.ReadFile(filepath.Join(out, "cv.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cv struct {
			Calibration *struct {
				Brier float64 `json:"brier"`
			} `json:"calibration"`
		}
		if err := json.Unmarshal(b, &cv); err != nil {
			t.Fatal(err)
		}
		if classify := target == "interrupt" || target == "cliff"; classify != (cv.Calibration != nil) {
			t.Errorf("%s: calibration in cv.json: %v", target, cv.Calibration != nil)
		}
	}
	est := filepath.Join(dir, "estimate")
	if _, e, code := run(t, "train", "--model", "estimate", "--samples", samples, "-o", est); code != 2 || !strings.Contains(e, samples) {
		t.Errorf("estimate without q_est_start_minus_p_end_sec: exit %d, want 2 naming the file: %s", code, e)
	}
	estSamples := filepath.Join(dir, "est.parquet")
	writeSamples(t, estSamples, []string{"q_est_start_minus_p_end_sec", "b"})
	stdout, stderr, code := run(t, "train", "--model", "estimate", "--samples", estSamples, "-o", est, "--json")
	if code != 0 {
		t.Fatalf("estimate: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(est, "model.json")); !os.IsNotExist(err) {
		t.Errorf("estimate wrote a model.json: %v", err)
	}
	var sum trainSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.OperatingPoint == nil || sum.OperatingPoint.Param != "margin_h" {
		t.Errorf("estimate summary: %v %s", err, stdout)
	}
	// estimate-rt reads the estimate with predicted run times: the
	// samples above lack it, these have it.
	if _, e, code := run(t, "train", "--model", "estimate-rt", "--samples", estSamples, "-o", est+"-rt"); code != 2 || !strings.Contains(e, "q_est_rt_start_minus_p_end_sec") {
		t.Errorf("estimate-rt without q_est_rt_start_minus_p_end_sec: exit %d, want 2 naming the feature: %s", code, e)
	}
	rtSamples := filepath.Join(dir, "est-rt.parquet")
	writeSamples(t, rtSamples, []string{"q_est_rt_start_minus_p_end_sec", "b"})
	if _, e, code := run(t, "train", "--model", "estimate-rt", "--samples", rtSamples, "-o", est+"-rt"); code != 0 {
		t.Fatalf("estimate-rt: exit %d: %s", code, e)
	}
	// --budget-rule nested: the manifest says the rule, and the chosen
	// point its CV overlap per block and the bound held.
	if _, e, code := run(t, "train", "--model", "estimate", "--samples", estSamples, "-o", est+"-nested", "--budget-rule", "nested"); code != 0 {
		t.Fatalf("estimate --budget-rule nested: exit %d: %s", code, e)
	}
	if a, err := train.Open(est + "-nested"); err != nil || a.Manifest.OperatingPoint.BudgetRule != train.BudgetNested ||
		len(a.Manifest.OperatingPoint.ByChain["1"].BlockOverlapH) != 5 || a.Manifest.OperatingPoint.ByChain["1"].BoundHeld == nil {
		t.Errorf("estimate --budget-rule nested manifest: %v %+v", err, a)
	}
	a, err := train.Open(est + "-rt")
	if err != nil || a.Manifest.Target != string(train.TargetEstimateRT) || a.Manifest.OperatingPoint.Rule != train.RuleText(train.TargetEstimateRT) {
		t.Errorf("estimate-rt manifest: %v %+v", err, a)
	}
	// fixed-lead chooses the lead on P's remaining time: a model kind
	// train --model takes.
	flSamples := filepath.Join(dir, "fl.parquet")
	writeSamples(t, flSamples, []string{"p_remaining_sec", "b"})
	if _, e, code := run(t, "train", "--model", "fixed-lead", "--samples", flSamples, "-o", est+"-fl"); code != 0 {
		t.Fatalf("fixed-lead: exit %d: %s", code, e)
	}
	if a, err := train.Open(est + "-fl"); err != nil || a.Manifest.Target != string(train.TargetFixedLead) || a.Manifest.OperatingPoint.Param != "lead_h" {
		t.Errorf("fixed-lead manifest: %v %+v", err, a)
	}
	// report on it names the policy that evaluates it
	if _, e, code := run(t, "report", est+"-fl"); code != exitUsage || !strings.Contains(e, "--policy reactive,fixed-lead:"+est+"-fl ") {
		t.Errorf("report on a fixed-lead model: exit %d, want %d naming fixed-lead:DIR: %s", code, exitUsage, e)
	}
	for name, args := range map[string][]string{
		"BadTarget": {"train", "--target", "cost", "--samples", samples, "-o", est},
		"NegBudget": {"train", "--overlap-budget", "-1h", "--samples", samples, "-o", est},
		"BadRule":   {"train", "--budget-rule", "max", "--samples", samples, "-o", est},
		"TwoRules":  {"train", "--budget-rule", "nested", "--budget-every-block", "--samples", samples, "-o", est},
	} {
		if _, e, code := run(t, args...); code != 3 {
			t.Errorf("%s: exit %d, want 3: %s", name, code, e)
		}
	}
}
