package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

func TestReport_PrintsPath(t *testing.T) {
	dir := t.TempDir()
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
	}
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := filepath.Join(dir, "report", "report.html")
	if strings.TrimSpace(stdout) != want {
		t.Fatalf("stdout %q, want %q", stdout, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
}

func TestReport_NotAnEvaluation(t *testing.T) {
	if _, stderr, code := run(t, "report", t.TempDir()); code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
}

func TestReport_Predictions(t *testing.T) {
	dir := t.TempDir()
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
	}
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	s := &features.Samples{WindowID: []int32{0, 1}, ChainNodes: []int32{1, 1},
		ProbeTime: []int64{1_700_000_000, 1_700_043_200}, LabelRSec: []int64{3600, -3600}}
	pred := filepath.Join(t.TempDir(), "p.parquet")
	if err := train.WritePredictions(pred, s, []float32{2, -1}, "m/forest sha256:0"); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "report", "--predictions", pred, "--predictions-note", "On training samples.", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"forest: MAE 0.50 h over 2 rows", "On training samples."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "predicted-vs-actual.png")); err != nil {
		t.Error(err)
	}
}

// writeReportDQNModel writes a small DQN model directory (weights, curve.csv,
// manifest.json) as mirage train --model dqn does.
func writeReportDQNModel(t *testing.T, dir string) {
	t.Helper()
	net, err := dqn.NewMLP([]int{features.NumFeatures(), 4, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var curve []dqn.CurvePoint
	for ep := range 30 {
		curve = append(curve, dqn.CurvePoint{Episode: ep, Decisions: 5, Return: float64(ep) / 10, Loss: 1 / float64(ep+1),
			Epsilon: 1 - float64(ep)/30, ValidReturn: math.NaN()})
	}
	curve[29].ValidReturn = 2.5
	var b bytes.Buffer
	if err := dqn.WriteCurveCSV(&b, curve); err != nil {
		t.Fatal(err)
	}
	m := &dqn.Manifest{Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: dqn.NewStats(nil, features.NumFeatures()),
		Training:        dqn.Summarise(&dqn.Result{Curve: curve, Decisions: 150, BestValid: 2.5})}
	if err := dqn.WriteArtifact(dir, net, b.Bytes(), m); err != nil {
		t.Fatal(err)
	}
}

// writeRelativeEval writes, from the working directory root, a DQN model
// at models/m and an evaluation at runs/eval whose policy names it as
// dqn:models/m (relative to root), and returns the evaluation directory.
func writeRelativeEval(t *testing.T, root string) string {
	t.Helper()
	t.Chdir(root)
	writeReportDQNModel(t, filepath.Join("models", "m"))
	rows := []evaluate.Row{
		{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
		{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
		{Policy: "dqn:models/m", ChainNodes: 1, Window: 0, RSec: 600, ReactiveRSec: 7200},
	}
	if err := evaluate.WriteDir(filepath.Join("runs", "eval"), evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "runs", "eval")
}

// TestReport_OtherDirectory: the model directories are stored relative to
// the evaluation, so mirage report gives the same page from any working
// directory.
func TestReport_OtherDirectory(t *testing.T) {
	root := t.TempDir()
	dir := writeRelativeEval(t, root)
	var pages [][]byte
	for i, cwd := range []string{root, t.TempDir(), filepath.Join(root, "runs")} {
		t.Chdir(cwd)
		out := filepath.Join(t.TempDir(), "report")
		_, stderr, code := run(t, "report", "-o", out, "--resamples", "200", dir)
		if code != 0 {
			t.Fatalf("run %d from %s: exit %d: %s", i, cwd, code, stderr)
		}
		page, err := os.ReadFile(filepath.Join(out, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), "DQN training curve: m") {
			t.Errorf("run %d from %s: the DQN model's curve is missing", i, cwd)
		}
		pages = append(pages, page)
	}
	for i := 1; i < len(pages); i++ {
		if !bytes.Equal(pages[0], pages[i]) {
			t.Errorf("the page from working directory %d differs from the first", i)
		}
	}
}

func TestReport_DQN(t *testing.T) {
	root := t.TempDir()
	dir := writeRelativeEval(t, root)
	t.Chdir(t.TempDir())
	stdout, stderr, code := run(t, "report", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		DQN []struct {
			Policy, Dir, Figure string
			Episodes, Decisions int
		} `json:"dqn"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(rep.DQN) != 1 || rep.DQN[0].Policy != "dqn:models/m" || rep.DQN[0].Dir != filepath.Join(root, "models", "m") ||
		rep.DQN[0].Episodes != 30 || rep.DQN[0].Decisions != 150 || rep.DQN[0].Figure != "dqn-curve-m" {
		t.Errorf("dqn %+v", rep.DQN)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "30 episodes, 150 decisions, best validation return 2.5"; !strings.Contains(string(page), want) {
		t.Errorf("report.html lacks %q", want)
	}
	for _, name := range []string{"dqn-curve-m.png", "dqn-curve-m.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "report", name)); err != nil {
			t.Error(err)
		}
	}
	// A missing model directory (moved away) is bad usage naming it.
	if err := os.Rename(filepath.Join(root, "models"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "report", dir); code != 3 || !strings.Contains(stderr, "model directory not found: dqn:models/m") {
		t.Errorf("moved model: exit %d, want 3: %s", code, stderr)
	}
	// --dqn naming a missing directory or one without curve.csv: bad usage,
	// the message names the path.
	if err := os.Rename(filepath.Join(root, "moved"), filepath.Join(root, "models")); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	empty := t.TempDir()
	for _, tc := range []struct{ arg, path string }{
		{gone, filepath.Join(gone, "curve.csv")},
		{empty, filepath.Join(empty, "curve.csv")},
	} {
		_, stderr, code := run(t, "report", "--dqn", tc.arg, dir)
		if code != 3 || !strings.Contains(stderr, tc.path) {
			t.Errorf("--dqn %s: exit %d, want 3 naming %s: %s", tc.arg, code, tc.path, stderr)
		}
	}
}

// TestReport_OperatingPoints: a slurm-estimate model directory's operating
// point is reported next to its validation outcome; a missing model
// directory is bad usage, not a silently missing table.
func TestReport_OperatingPoints(t *testing.T) {
	model := filepath.Join(t.TempDir(), "est")
	cp := train.ChainPoint{Value: 0.5, Threshold: -0.5, Windows: 30, InterruptionReduction: 0.4, MeanOverlapH: 0.8, WithinBudget: true}
	man := &train.Manifest{Kind: train.KindEstimate, Target: string(train.TargetEstimate),
		OperatingPoint: &train.OperatingPoint{Target: train.TargetEstimate, Rule: train.RuleText(train.TargetEstimate),
			Param: "margin_h", BudgetH: 1, ByChain: map[string]train.ChainPoint{"1": cp}, Default: cp}}
	if err := train.WriteArtifact(model, nil, man); err != nil {
		t.Fatal(err)
	}
	write := func(extra ...evaluate.Row) string {
		dir := t.TempDir()
		rows := append([]evaluate.Row{
			{Policy: "reactive", ChainNodes: 1, Window: 0, RSec: 7200, ReactiveRSec: 7200},
			{Policy: "oracle", ChainNodes: 1, Window: 0, RSec: -600, ReactiveRSec: 7200},
			{Policy: "slurm-estimate:" + model, ChainNodes: 1, Window: 0, RSec: 3600, ReactiveRSec: 7200},
		}, extra...)
		if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	gone := filepath.Join(t.TempDir(), "gone")
	if _, stderr, code := run(t, "report", write(evaluate.Row{Policy: "forest:" + gone + "@θ=1", ChainNodes: 1, Window: 0, ReactiveRSec: 7200})); code != 3 || !strings.Contains(stderr, gone) {
		t.Errorf("missing model directory: exit %d, want 3 naming %s: %s", code, gone, stderr)
	}
	dir := write()
	stdout, stderr, code := run(t, "report", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Points []struct {
			Policy      string
			Chain       string `json:"chain_nodes"`
			Param       string
			ValidPolicy string `json:"valid_policy"`
			Train       train.ChainPoint
			Valid       *evaluate.Summary
		} `json:"operating_points"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(rep.Points) != 1 {
		t.Fatalf("operating points %+v", rep.Points)
	}
	p := rep.Points[0]
	if p.Policy != "slurm-estimate:"+model || p.Chain != "1" || p.Param != "margin_h" || !reflect.DeepEqual(p.Train, cp) || p.Valid == nil ||
		p.ValidPolicy != p.Policy || math.Abs(p.Valid.InterruptionReduction-0.5) > 1e-12 {
		t.Errorf("operating point %+v, valid %+v", p, p.Valid)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<td>margin_h = 0.5</td>") {
		t.Error("report.html lacks the operating point")
	}
}
