package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/evaluate"
	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/train/dqn"
)

// handCurve is a training curve of n episodes as dqn.Train reports it:
// no loss before episode 3, validation every 10 episodes.
func handCurve(n int) []dqn.CurvePoint {
	var c []dqn.CurvePoint
	for ep := range n {
		p := dqn.CurvePoint{Episode: ep, Start: 1_700_000_000 + int64(ep)*3600, ChainNodes: 1 + ep%2,
			Decisions: 10 + ep%7, Return: -10 + float64(ep%9) + float64(ep)/4, RSec: int64(ep) * 60,
			Loss: math.NaN(), Epsilon: max(0.05, 1-float64(ep)/float64(n)), ValidReturn: math.NaN()}
		if ep >= 3 {
			p.Loss = 2 / float64(ep)
		}
		if ep%10 == 9 {
			p.ValidReturn = -8 + float64(ep)/10
		}
		c = append(c, p)
	}
	return c
}

// writeDQNModel writes a DQN model directory (weights, curve.csv with n
// episodes, manifest.json) as mirage train --model dqn does.
func writeDQNModel(t testing.TB, dir string, n int) {
	t.Helper()
	net, err := dqn.NewMLP([]int{features.NumFeatures(), 4, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	curve := handCurve(n)
	var b bytes.Buffer
	if err := dqn.WriteCurveCSV(&b, curve); err != nil {
		t.Fatal(err)
	}
	m := &dqn.Manifest{Features: features.Schema(), FeatureSchemaVersion: features.FeatureSchemaVersion,
		Standardisation: dqn.NewStats(nil, features.NumFeatures()),
		Training: dqn.Summarise(&dqn.Result{Curve: curve, Decisions: 1234, BestValid: -4.25,
			ValidStart: []int64{1}, ValidReactive: -6.5, ValidOracle: -0.75})}
	m.Config.Target = "stopping"
	if err := dqn.WriteArtifact(dir, net, b.Bytes(), m); err != nil {
		t.Fatal(err)
	}
}

func TestMovingMean(t *testing.T) {
	nan := math.NaN()
	x, y := movingMean([]float64{0, 1, 2, 3, 4}, []float64{nan, 2, 4, nan, 9}, 2)
	if !slices.Equal(x, []float64{1, 2, 4}) || !slices.Equal(y, []float64{2, 3, 9}) {
		t.Fatalf("moving mean: %v %v", x, y)
	}
	// No overflow on huge values.
	if _, y := movingMean([]float64{0, 1}, []float64{maxPlotted, maxPlotted}, 2); y[1] != maxPlotted {
		t.Fatalf("huge values: %v", y)
	}
}

func TestDQNFigure_Golden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	writeDQNModel(t, dir, 30)
	m, err := LoadDQN("dqn:m", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Episodes != 30 || m.Decisions != 1234 || m.BestValidReturn == nil || *m.BestValidReturn != -4.25 {
		t.Fatalf("model %+v", m)
	}
	m.Dir = "m" // the golden file must not name the temporary directory
	f := DQNFigure(&m)
	// one scale per axis: the validation return has its own panel
	if len(f.Panels) != 4 || f.Panels[1].YLabel != "validation return (h)" || f.Panels[3].YLabel != "ε" {
		t.Errorf("panels %+v", f.Panels)
	}
	kinds := map[string][]string{}
	for _, s := range f.Series {
		kinds[s.Label] = append(kinds[s.Label], s.Kind+"/"+strconv.Itoa(s.Panel))
	}
	want := map[string]string{"per episode": "points/0 points/2", "mean of last 25 episodes": "curve/0 curve/2",
		"validation return": "line/1", "ε": "curve/3"}
	for k, v := range want {
		if got := strings.Join(kinds[k], " "); got != v {
			t.Errorf("series %q: %q, want %q", k, got, v)
		}
	}
	// the legend: one entry per label, and no two entries drawn alike
	ps, leg, _, err := buildPlots(&f)
	if err != nil || len(ps) != 4 {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range leg.entries {
		if seen[e.label] {
			t.Errorf("legend repeats %q", e.label)
		}
		seen[e.label] = true
	}
	if len(leg.entries) != 6 {
		var ls []string
		for _, e := range leg.entries {
			ls = append(ls, e.label)
		}
		t.Errorf("legend %q, want per episode, mean, validation return, reactive, oracle, ε", ls)
	}
	for _, s := range []string{"30 episodes", "1234 decisions", "best validation return -4.25"} {
		if !strings.Contains(f.Caption, s) {
			t.Errorf("caption %q lacks %q", f.Caption, s)
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "dqn-figure.golden.json"), append(b, '\n'))
	if _, err := encode(&f, "svg"); err != nil {
		t.Fatal(err)
	}
}

// writeDQNEval writes an evaluation whose policies are reactive, oracle
// and each of dqnPolicies.
func writeDQNEval(t *testing.T, dqnPolicies ...string) string {
	t.Helper()
	dir := t.TempDir()
	var rows []evaluate.Row
	for w, r := range []int64{3600, 7200} {
		start := int64(1_700_000_000 + w*43200)
		for i, p := range append([]string{"reactive", "oracle"}, dqnPolicies...) {
			rsec := []int64{r, 0}[min(i, 1)]
			if i > 1 {
				rsec = r / 2
			}
			rows = append(rows, evaluate.Row{Policy: p, ChainNodes: 1, Window: w, WindowStart: start,
				RSec: rsec, ReactiveRSec: r})
		}
	}
	if err := evaluate.WriteDir(dir, evaluate.Compute(rows, evaluate.DefaultLambda), rows); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRender_DQN(t *testing.T) {
	model := filepath.Join(t.TempDir(), "dqn-a")
	writeDQNModel(t, model, 40)
	dir := writeDQNEval(t, "dqn:"+model)
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.DQN) != 1 || rep.DQN[0].Policy != "dqn:"+model || rep.DQN[0].Figure != "dqn-curve-dqn-a" {
		t.Fatalf("DQN models %+v", rep.DQN)
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pageProblems(page, out) {
		t.Error("report.html: " + p)
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != len(rep.Figures) || n != 5 {
		t.Errorf("inlined figures: %d, want %d", n, len(rep.Figures))
	}
	if d := rep.DQN[0]; d.Target != "stopping" || d.GradSteps != 0 || len(d.WeightsSHA256) != 64 {
		t.Errorf("DQN model card: target %q, grad steps %d, weights sha256 %q", d.Target, d.GradSteps, d.WeightsSHA256)
	}
	for _, want := range []string{"DQN training curve: dqn-a", "40 episodes", "best validation return -4.25",
		"DQN models (returns in hours", "<td>-4.25</td><td>-6.50</td><td>-0.75</td>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	png1, err := os.ReadFile(filepath.Join(out, "dqn-curve-dqn-a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "dqn-curve-dqn-a.svg")); err != nil {
		t.Error(err)
	}
	// Deterministic bytes.
	if _, err := Render(context.Background(), dir, out, Options{}); err != nil {
		t.Fatal(err)
	}
	page2, _ := os.ReadFile(rep.HTML)
	png2, _ := os.ReadFile(filepath.Join(out, "dqn-curve-dqn-a.png"))
	if !bytes.Equal(page, page2) || !bytes.Equal(png1, png2) {
		t.Error("the DQN figure or the page differs between two renders")
	}
	// --json output carries the models (no NaN from the curve).
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}
