package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/train"
	"github.com/mirage-hpc/mirage/train/dqn"
)

func chainMetrics(byChain map[string]evaluate.Summary) evaluate.PolicyMetrics {
	pm := evaluate.PolicyMetrics{ByChain: map[string]evaluate.ChainMetrics{}}
	for k, s := range byChain {
		pm.ByChain[k] = evaluate.ChainMetrics{Summary: s}
	}
	return pm
}

func TestPointRows(t *testing.T) {
	cp := func(v, red, ovl float64, within bool) train.ChainPoint {
		return train.ChainPoint{Value: v, Threshold: -v, Windows: 10, InterruptionReduction: red, MeanOverlapH: ovl, WithinBudget: within}
	}
	sum := func(red, ovl float64) evaluate.Summary {
		return evaluate.Summary{Windows: 3, InterruptionReduction: red, MeanOverlapH: ovl}
	}
	forest := ModelDir{Policy: "forest:m", Dir: "m", Target: "r", OperatingPoint: &train.OperatingPoint{
		Target: train.TargetR, Param: "theta_h", BudgetH: 1,
		ByChain: map[string]train.ChainPoint{"1": cp(0.5, 0.6, 0.8, true), "4": cp(-1, 0.1, 2, false)},
		Default: cp(0.25, 0.4, 0.9, true),
	}}
	interrupt := ModelDir{Policy: "xgboost:x", Dir: "x", Target: "interrupt", OperatingPoint: &train.OperatingPoint{
		Target: train.TargetInterrupt, Param: "tau", BudgetH: 0.5,
		ByChain: map[string]train.ChainPoint{"1": cp(0.3, 0.5, 0.4, true)},
	}}
	for _, tc := range []struct {
		name    string
		models  []ModelDir
		metrics map[string]evaluate.PolicyMetrics
		want    []PointRow
	}{
		{
			name:   "own policy, default for an untrained size, not evaluated",
			models: []ModelDir{forest},
			metrics: map[string]evaluate.PolicyMetrics{
				"forest:m": chainMetrics(map[string]evaluate.Summary{"1": sum(0.55, 0.7), "8": sum(0.2, 1.5)}),
			},
			want: []PointRow{
				{Policy: "forest:m", Chain: "1", Target: "r", Param: "theta_h", BudgetH: 1, Train: cp(0.5, 0.6, 0.8, true),
					ValidPolicy: "forest:m", Valid: &evaluate.Summary{Windows: 3, InterruptionReduction: 0.55, MeanOverlapH: 0.7}},
				{Policy: "forest:m", Chain: "4", Target: "r", Param: "theta_h", BudgetH: 1, Train: cp(-1, 0.1, 2, false)},
				{Policy: "forest:m", Chain: "8", Target: "r", Param: "theta_h", BudgetH: 1, Default: true, Train: cp(0.25, 0.4, 0.9, true),
					ValidPolicy: "forest:m", Valid: &evaluate.Summary{Windows: 3, InterruptionReduction: 0.2, MeanOverlapH: 1.5}},
			},
		},
		{
			name:   "sweep variant at the chosen value",
			models: []ModelDir{interrupt},
			metrics: map[string]evaluate.PolicyMetrics{
				"xgboost:x@τ=0.1": chainMetrics(map[string]evaluate.Summary{"1": sum(0.9, 3)}),
				"xgboost:x@τ=0.3": chainMetrics(map[string]evaluate.Summary{"1": sum(0.45, 0.35)}),
			},
			want: []PointRow{
				{Policy: "xgboost:x", Chain: "1", Target: "interrupt", Param: "tau", BudgetH: 0.5, Train: cp(0.3, 0.5, 0.4, true),
					ValidPolicy: "xgboost:x@τ=0.3", Valid: &evaluate.Summary{Windows: 3, InterruptionReduction: 0.45, MeanOverlapH: 0.35}},
			},
		},
		{
			name:   "no operating point",
			models: []ModelDir{{Policy: "forest:n", Dir: "n", Target: "r"}},
			metrics: map[string]evaluate.PolicyMetrics{
				"forest:n": chainMetrics(map[string]evaluate.Summary{"1": sum(0.5, 0.5)}),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := evaluate.Metrics{Policies: tc.metrics}
			var order []string
			for p := range tc.metrics {
				order = append(order, p)
			}
			slices.Sort(order)
			if d := cmpDiff(tc.want, PointRows(tc.models, m, order)); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// handClassifier is the manifest of an interrupt classifier with an
// operating point per chain size and a cross-validated calibration.
func handClassifier() train.Manifest {
	cal := func(rows int, base, brier, ll float64, bins ...train.ReliabilityBin) train.Calibration {
		return train.Calibration{Rows: rows, BaseRate: base, Brier: brier, BrierBaseRate: base * (1 - base), LogLoss: ll, Reliability: bins}
	}
	bin := func(lo float64, rows int, pred, obs float64) train.ReliabilityBin {
		return train.ReliabilityBin{Lo: lo, Hi: lo + 0.1, Rows: rows, MeanPredicted: pred, Observed: obs}
	}
	c1 := cal(120, 0.25, 0.12, 0.41, bin(0, 60, 0.05, 0.08), bin(0.3, 40, 0.34, 0.3), bin(0.8, 20, 0.86, 0.9))
	c8 := cal(80, 0.4, 0.2, 0.6, bin(0.1, 50, 0.15, 0.3), bin(0.6, 30, 0.65, 0.55))
	all := cal(200, 0.31, 0.155, 0.49)
	f0, f1 := cal(100, 0.3, 0.15, 0.48), cal(100, 0.32, 0.16, 0.5)
	pt := func(v, red, ovl float64, within bool) train.ChainPoint {
		return train.ChainPoint{Value: v, Threshold: v, Windows: 20, InterruptionReduction: red, MeanOverlapH: ovl, WithinBudget: within}
	}
	return train.Manifest{Kind: "xgboost", Target: "interrupt", Rows: 200, Windows: 40, ChainNodes: []int32{1, 8},
		TimeRange: [2]int64{1_690_000_000, 1_699_000_000},
		OperatingPoint: &train.OperatingPoint{Target: train.TargetInterrupt, Rule: train.RuleText(train.TargetInterrupt),
			Param: "tau", BudgetH: 1, Source: "out-of-fold predictions of 2 time-blocked folds on 40 training windows",
			ByChain: map[string]train.ChainPoint{"1": pt(0.3, 0.6, 0.9, true), "8": pt(0.9, 0.05, 1.4, false)},
			Default: pt(0.4, 0.4, 1, true),
			Frontier: map[string][]train.ChainPoint{
				"1": {pt(0.9, 0.1, 0.2, true), pt(0.3, 0.6, 0.9, true), pt(0.1, 0.8, 2.5, false)},
				"8": {pt(0.9, 0.05, 1.4, false), pt(0.5, 0.3, 3, false)},
			}},
		CV: &train.CVResult{Model: "xgboost", K: 2, Calibration: &all,
			CalibrationByChain: map[int32]train.Calibration{1: c1, 8: c8},
			Folds:              []train.FoldResult{{Fold: 0, TestWindows: 20, Calibration: &f0}, {Fold: 1, TestWindows: 20, Calibration: &f1}}},
	}
}

// writeManifest writes man as dir/manifest.json (no model.json: the
// report reads the manifest only).
func writeManifest(t *testing.T, dir string, man any) {
	t.Helper()
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, train.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeModelEval writes an evaluation of handRows whose model sweep is
// MODEL@τ=0.5 and MODEL@τ=1 and whose chain sizes are 1 and 8.
func writeModelEval(t *testing.T, model string) string {
	t.Helper()
	rows := handRows()
	for i := range rows {
		if strings.HasPrefix(rows[i].Policy, "slurm-estimate@margin=") {
			rows[i].Policy = model + "@τ=" + strings.TrimPrefix(rows[i].Policy, "slurm-estimate@margin=")
		}
		if rows[i].Window == 2 {
			rows[i].ChainNodes = 8
		}
	}
	dir := t.TempDir()
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRender_ClassifierCalibration(t *testing.T) {
	model := filepath.Join(t.TempDir(), "clf")
	man := handClassifier()
	man.OperatingPoint.ByChain["1"] = train.ChainPoint{Value: 0.5, Threshold: 0.5, Windows: 20, InterruptionReduction: 0.6,
		MeanOverlapH: 0.9, WithinBudget: true}
	writeManifest(t, model, man)
	dir := writeModelEval(t, "xgboost:"+model)
	var logs bytes.Buffer
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("warnings: %s", logs.String())
	}
	var cal, front *Figure
	for i := range rep.Figures {
		switch rep.Figures[i].Name {
		case "calibration-clf":
			cal = &rep.Figures[i]
		case "cv-frontier-clf":
			front = &rep.Figures[i]
		}
	}
	if cal == nil || front == nil {
		t.Fatalf("figures: calibration %v, frontier %v", cal != nil, front != nil)
	}
	var labels []string
	for _, s := range cal.Series {
		labels = append(labels, s.Label)
	}
	if want := []string{"perfectly calibrated", "1 node(s)", "8 node(s)"}; !slices.Equal(labels, want) {
		t.Errorf("calibration series %q, want %q", labels, want)
	}
	for _, want := range []string{"1 node(s): Brier 0.1200 (0.1875 always predicting the base rate 0.250), log loss 0.4100, 120 rows",
		"8 node(s): Brier 0.2000"} {
		if !strings.Contains(cal.Caption, want) {
			t.Errorf("calibration caption lacks %q: %s", want, cal.Caption)
		}
	}
	for _, ext := range []string{".png", ".svg"} {
		for _, f := range []string{cal.Name, front.Name} {
			if _, err := os.Stat(filepath.Join(out, f+ext)); err != nil {
				t.Error(err)
			}
		}
	}
	if len(front.Panels) != 2 {
		t.Errorf("frontier panels %+v, want one per chain size", front.Panels)
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pageProblems(page, out) {
		t.Error("report.html: " + p)
	}
	pol := "clf" // the short label; the key names xgboost:MODEL
	for _, want := range []string{
		"<h3>Operating points</h3>",
		// Chain 1: chosen τ = 0.5, validated by the sweep variant at 0.5.
		"<td>" + pol + "</td><td>1</td><td>interrupt</td><td>tau = 0.5</td><td>1</td><td>20</td><td>60.0%</td><td>0.90</td><td>" + pol + "@τ=0.5</td><td>2</td>",
		// Chain 8: over budget; no variant at τ = 0.9.
		`<tr class="over"><td>` + pol + "</td><td>8</td><td>interrupt</td><td>tau = 0.9 (over budget)</td>",
		"not evaluated at this chain size",
		"<h3>Calibration</h3>",
		"<td>fold 1</td><td>20</td><td>100</td><td>0.3200</td><td>0.1600</td><td>0.2176</td><td>0.5000</td>",
		"<td>8 node(s), out of fold</td>",
		"Calibration: clf",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if len(rep.Points) != 2 || len(rep.Models) != 1 {
		t.Errorf("operating points %d, model dirs %d", len(rep.Points), len(rep.Models))
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}

// TestLoadModelDir_CVFile: cross-validation comes from cv.json when the
// manifest has none.
func TestLoadModelDir_CVFile(t *testing.T) {
	dir := t.TempDir()
	man := handClassifier()
	cv := man.CV
	man.CV = nil
	writeManifest(t, dir, man)
	b, err := json.Marshal(cv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, train.CVFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModelDir("xgboost:"+dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Classifier() || m.CV == nil || len(m.CV.CalibrationByChain) != 2 || m.OperatingPoint == nil {
		t.Fatalf("loaded %+v", m)
	}
}

// TestRender_ModelDirUnreadable: a missing or malformed model directory
// is an error, not a silently missing table.
func TestRender_ModelDirUnreadable(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, train.ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model string
		err   error
	}{{filepath.Join(t.TempDir(), "gone"), evaluate.ErrModelDir}, {bad, train.ErrBadModel}} {
		dir := writeModelEval(t, "forest:"+tc.model)
		out := filepath.Join(t.TempDir(), "report")
		_, err := Render(context.Background(), dir, out, Options{Formats: []string{"png"}})
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.model, err, tc.err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: report directory written: %v", tc.model, err)
		}
	}
}

func TestModelFigures_Golden(t *testing.T) {
	man := handClassifier()
	m := ModelDir{Policy: "xgboost:clf", Dir: "clf", Kind: man.Kind, Target: man.Target, OperatingPoint: man.OperatingPoint,
		CV: man.CV, CalibrationFigure: "calibration-clf", FrontierFigure: "cv-frontier-clf"}
	b, err := json.MarshalIndent([]Figure{CalibrationFigure(&m), CVFrontierFigure(&m)}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "model-figures.golden.json"), append(b, '\n'))
}

// TestLoadModelDir_DQN: a DQN manifest's operating point (its bias) is
// read; its target is advantage.
func TestLoadModelDir_DQN(t *testing.T) {
	dir := t.TempDir()
	cp := train.ChainPoint{Value: 0.25, Threshold: 0.25, Windows: 8, WithinBudget: true}
	writeManifest(t, dir, &dqn.Manifest{Kind: "dqn", OperatingPoint: &train.OperatingPoint{Target: train.TargetAdvantage,
		Param: "bias_h", BudgetH: 1, ByChain: map[string]train.ChainPoint{"2": cp}, Default: cp}})
	m, err := LoadModelDir("dqn:"+dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "dqn" || m.Target != "advantage" || m.Classifier() || m.OperatingPoint == nil || m.OperatingPoint.Param != "bias_h" {
		t.Fatalf("loaded %+v", m)
	}
	rows := PointRows([]ModelDir{m}, evaluate.Metrics{}, nil)
	if len(rows) != 1 || rows[0].Chain != "2" || rows[0].Valid != nil {
		t.Fatalf("rows %+v", rows)
	}
}
