package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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

const curveHeader = "episode,window_start,chain_nodes,decisions,return,r_sec,loss,epsilon,valid_return\n"

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

func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

func samePoints(a, b []CurvePoint) bool {
	return slices.EqualFunc(a, b, func(p, q CurvePoint) bool {
		return p.Episode == q.Episode && sameFloat(p.Return, q.Return) && sameFloat(p.Decisions, q.Decisions) &&
			sameFloat(p.Loss, q.Loss) && sameFloat(p.Epsilon, q.Epsilon) && sameFloat(p.ValidReturn, q.ValidReturn)
	})
}

func TestReadCurve(t *testing.T) {
	nan := math.NaN()
	pt := func(ep int, ret, dec, loss, eps, valid float64) CurvePoint {
		return CurvePoint{Episode: ep, Return: ret, Decisions: dec, Loss: loss, Epsilon: eps, ValidReturn: valid}
	}
	for _, tc := range []struct {
		name, in string
		want     []CurvePoint
		// On error: the line and field it must name.
		line  int
		field string
	}{
		{name: "today's columns", in: curveHeader +
			"0,1700000000,1,12,-3.5,7200,NaN,1,NaN\n" +
			"1,1700003600,2,9,-0.25,-60,0.125,0.9,-2\n",
			want: []CurvePoint{pt(0, -3.5, 12, nan, 1, nan), pt(1, -0.25, 9, 0.125, 0.9, -2)}},
		{name: "required only", in: "episode,return\n0,1\n1,-2e3\n",
			want: []CurvePoint{pt(0, 1, nan, nan, nan, nan), pt(1, -2000, nan, nan, nan, nan)}},
		{name: "reordered, unknown and new columns ignored", in: "valid_return,greedy_return,return,note,episode\n" +
			"NaN,-1,2,\"a, b\",7\n 3 ,x,-1, ,8\n",
			want: []CurvePoint{pt(7, 2, nan, nan, nan, nan), pt(8, -1, nan, nan, nan, 3)}},
		{name: "BOM, CRLF, spaces, empty values, blank line", in: "\uFEFF episode , return ,loss\r\n\r\n0,1,\r\n1 , 2 , 0.5\r\n",
			want: []CurvePoint{pt(0, 1, nan, nan, nan, nan), pt(1, 2, nan, 0.5, nan, nan)}},
		{name: "header only", in: curveHeader, want: nil},
		{name: "empty file", in: "", line: 1},
		{name: "no return column", in: "episode,loss\n0,1\n", line: 1, field: "return"},
		{name: "no episode column", in: "return\n0\n", line: 1, field: "episode"},
		{name: "column twice", in: "episode,return,loss,loss\n", line: 1, field: "loss"},
		{name: "bad episode", in: curveHeader + "0,0,1,1,-1,0,NaN,1,NaN\n1.5,0,1,1,-1,0,NaN,1,NaN\n", line: 3, field: "episode"},
		{name: "NaN return", in: "episode,return\n0,NaN\n", line: 2, field: "return"},
		{name: "infinite return", in: "episode,return\n0,1\n1,2\n2,-Inf\n", line: 4, field: "return"},
		{name: "bad loss", in: curveHeader + "0,0,1,1,-1,0,fast,1,NaN\n", line: 2, field: "loss"},
		{name: "bad epsilon", in: "episode,return,epsilon\n0,1,0.5\n1,1,1e999\n", line: 3, field: "epsilon"},
		{name: "bad valid_return", in: "episode,return,valid_return\n0,1,--1\n", line: 2, field: "valid_return"},
		{name: "bad decisions", in: "episode,decisions,return\n0,ten,1\n", line: 2, field: "decisions"},
		{name: "too few fields", in: "episode,return,loss\n0,1,2\n1,2\n", line: 3},
		{name: "too many fields", in: "episode,return\n0,1,2\n", line: 2},
		{name: "bare quote", in: "episode,return\n0,1\n1,2\"\n", line: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadCurve(strings.NewReader(tc.in), "m/curve.csv")
			if tc.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if !samePoints(c.Points, tc.want) {
					t.Fatalf("points\n%+v\nwant\n%+v", c.Points, tc.want)
				}
				return
			}
			var ce *CurveError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *CurveError", err, err)
			}
			if ce.Path != "m/curve.csv" || ce.Line != tc.line || ce.Field != tc.field {
				t.Fatalf("err names %s:%d field %q, want line %d field %q: %v", ce.Path, ce.Line, ce.Field, tc.line, tc.field, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "m/curve.csv:"+strconv.Itoa(tc.line)+": ") || (tc.field != "" && !strings.Contains(msg, "field "+tc.field+": ")) {
				t.Errorf("message %q does not name file, line and field", msg)
			}
		})
	}
}

// TestReadCurve_Writer reads what dqn.WriteCurveCSV writes.
func TestReadCurve_Writer(t *testing.T) {
	src := handCurve(12)
	var b bytes.Buffer
	if err := dqn.WriteCurveCSV(&b, src); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCurve(&b, "curve.csv")
	if err != nil {
		t.Fatal(err)
	}
	var want []CurvePoint
	for _, p := range src {
		want = append(want, CurvePoint{Episode: p.Episode, Return: p.Return, Decisions: float64(p.Decisions),
			Loss: p.Loss, Epsilon: p.Epsilon, ValidReturn: p.ValidReturn})
	}
	if !samePoints(c.Points, want) {
		t.Fatalf("read\n%+v\nwant\n%+v", c.Points, want)
	}
	if !c.Has(CurveLoss) || c.Has("greedy_return") {
		t.Errorf("columns %v", c.Columns)
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
	if !slices.Equal(f.Panels, []string{"return", "loss", "ε"}) {
		t.Errorf("panels %v", f.Panels)
	}
	kinds := map[string]string{}
	for _, s := range f.Series {
		kinds[s.Label] = s.Kind + "/" + strconv.Itoa(s.Panel)
	}
	want := map[string]string{"return per episode": "points/0", "return, mean of last 25": "curve/0",
		"validation return": "line/0", "loss per episode": "points/1", "loss, mean of last 25": "curve/1", "ε": "curve/2"}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("series %q: %q, want %q", k, kinds[k], v)
		}
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
	if _, err := newPlots(&f); err != nil {
		t.Fatal(err)
	}
}

// TestDQNFigure_Draws draws curves with only the required columns (one
// panel, no validation series), one episode, and extreme values (those
// beyond ±1e300 are left out).
func TestDQNFigure_Draws(t *testing.T) {
	for _, tc := range []struct {
		in             string
		panels, series int
	}{
		{"episode,return\n0,1\n1,2\n", 1, 2},
		{"episode,return,loss,epsilon,valid_return\n5,-1,NaN,NaN,NaN\n", 1, 2},
		{"episode,return,loss,epsilon\n-9223372036854775808,1e308,1e308,-1e308\n9223372036854775807,-1e308,+Inf,5e-324\n", 2, 3},
		{"episode,return\n0,1e20\n", 1, 2},
	} {
		c, err := ReadCurve(strings.NewReader(tc.in), "curve.csv")
		if err != nil {
			t.Fatal(err)
		}
		f := DQNFigure(&DQNModel{Policy: "dqn:x", Dir: "x", Episodes: len(c.Points), Curve: c})
		if len(f.Panels) != tc.panels || len(f.Series) != tc.series {
			t.Fatalf("%q: figure %+v", tc.in, f)
		}
		ps, err := newPlots(&f)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"png", "svg"} {
			if _, err := encode(ps, 16, figureHeight(&f, 10), format); err != nil {
				t.Fatalf("%q: %v", tc.in, err)
			}
		}
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
	rep, err := Render(context.Background(), dir, Options{})
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
	for _, p := range pageProblems(page) {
		t.Error("report.html: " + p)
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != len(rep.Figures) || n != 5 {
		t.Errorf("inlined figures: %d, want %d", n, len(rep.Figures))
	}
	if d := rep.DQN[0]; d.Target != "stopping" || d.GradSteps != 0 || len(d.WeightsSHA256) != 64 {
		t.Errorf("DQN model card: target %q, grad steps %d, weights sha256 %q", d.Target, d.GradSteps, d.WeightsSHA256)
	}
	for _, want := range []string{"DQN training curve: dqn:" + model, "40 episodes", "best validation return -4.25",
		"<h2>DQN models</h2>", "<td>-4.25</td><td>-6.50</td><td>-0.75</td>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	png1, err := os.ReadFile(filepath.Join(dir, "dqn-curve-dqn-a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dqn-curve-dqn-a.svg")); err != nil {
		t.Error(err)
	}
	// Deterministic bytes.
	if _, err := Render(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page2, _ := os.ReadFile(rep.HTML)
	png2, _ := os.ReadFile(filepath.Join(dir, "dqn-curve-dqn-a.png"))
	if !bytes.Equal(page, page2) || !bytes.Equal(png1, png2) {
		t.Error("the DQN figure or the page differs between two renders")
	}
	// --json output carries the models (no NaN from the curve).
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}

func TestRender_DQNExplicit(t *testing.T) {
	root := t.TempDir()
	model := filepath.Join(root, "runs", "models", "m")
	writeDQNModel(t, model, 5)
	other := filepath.Join(root, "other")
	writeDQNModel(t, other, 3)
	// The evaluation ran elsewhere: its policy path does not resolve here.
	dir := writeDQNEval(t, "dqn:../models/m")
	var logs bytes.Buffer
	rep, err := Render(context.Background(), dir, Options{DQN: []string{other, model},
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range rep.DQN {
		got = append(got, m.Policy+" "+m.Dir+" "+m.Figure)
	}
	want := []string{"dqn:../models/m " + model + " dqn-curve-m", "dqn:" + other + " " + other + " dqn-curve-other"}
	if !slices.Equal(got, want) {
		t.Errorf("models\n%q\nwant\n%q", got, want)
	}
	if logs.Len() != 0 {
		t.Errorf("warnings: %s", logs.String())
	}
}

func TestRender_DQNMissing(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	dir := writeDQNEval(t, "dqn:"+gone)
	// Found in the evaluation: warned about and skipped.
	var logs bytes.Buffer
	rep, err := Render(context.Background(), dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.DQN) != 0 || len(rep.Figures) != 4 {
		t.Errorf("%d DQN models, %d figures", len(rep.DQN), len(rep.Figures))
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), gone) {
		t.Errorf("log %q does not warn about %s", logs.String(), gone)
	}
	// Named explicitly: an error naming the path.
	empty := t.TempDir()
	noEpisodes := t.TempDir()
	if err := os.WriteFile(filepath.Join(noEpisodes, "curve.csv"), []byte(curveHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, path string }{
		{gone, gone},
		{empty, filepath.Join(empty, "curve.csv")},
		{noEpisodes, filepath.Join(noEpisodes, "curve.csv")},
	} {
		_, err := Render(context.Background(), dir, Options{DQN: []string{tc.dir}, Formats: []string{"png"}})
		if !errors.Is(err, ErrNoDQNCurve) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("--dqn %s: err = %v, want ErrNoDQNCurve naming %s", tc.dir, err, tc.path)
		}
	}
	// A malformed curve.csv named explicitly: the reader's error.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "curve.csv"), []byte("episode,return\n0,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Render(context.Background(), dir, Options{DQN: []string{bad}, Formats: []string{"png"}})
	var ce *CurveError
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Field != "return" {
		t.Errorf("malformed curve: err = %v", err)
	}
}

func TestSameModelDir(t *testing.T) {
	for _, tc := range []struct {
		explicit, policy string
		want             bool
	}{
		{"models/m", "models/m", true},
		{"./models/m/", "models/m", true},
		{"/data/runs/models/m", "models/m", true},
		{"/data/runs/models/m", "../models/m", true},
		{"/data/runs/models/m", "/home/u/models/m", false},
		{"/data/runs/xmodels/m", "models/m", false},
		{"/data/m", "..", false},
		{"/data/m2", "m", false},
	} {
		if got := sameModelDir(tc.explicit, tc.policy); got != tc.want {
			t.Errorf("sameModelDir(%q, %q) = %v", tc.explicit, tc.policy, got)
		}
	}
}

// FuzzCurveCSV reads arbitrary input as curve.csv and checks that the
// reader never panics, that an error is a *CurveError naming a line of the
// input and a header column (or no field), that what it reads survives a
// round trip through a rewritten curve.csv, and that its figure draws.
func FuzzCurveCSV(f *testing.F) {
	var b bytes.Buffer
	if err := dqn.WriteCurveCSV(&b, handCurve(30)); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(curveHeader + "0,1700000000,1,12,-3.5,7200,NaN,1,NaN\n"))
	f.Add([]byte("episode,return\n0,1\n1,-2e3\n"))
	f.Add([]byte("valid_return,greedy_return,return,note,episode\nNaN,-1,2,\"a, b\",7\n 3 ,x,-1, ,8\n"))
	f.Add([]byte("\uFEFF episode , return ,loss\r\n\r\n0,1,\r\n1 , 2 , 0.5\r\n"))
	f.Add([]byte("episode,return,epsilon,decisions\n0,1e308,+Inf,-Inf\n1,1e308,0x1p-2,1e300\n"))
	f.Add([]byte("episode,return,loss\n-9223372036854775808,-1e308,1e308\n9223372036854775807,1e308,-1e300\n"))
	f.Add([]byte("episode,return,loss,loss\n"))
	f.Add([]byte("episode,return\n0,1\n1,2\"\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadCurve(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			var ce *CurveError
			if !errors.As(err, &ce) {
				t.Fatalf("err is %T, not *CurveError: %v", err, err)
			}
			if ce.Path != "fuzz.csv" || ce.Line < 1 || ce.Line > bytes.Count(data, []byte{'\n'})+1 {
				t.Fatalf("err names %s:%d in %d lines: %v", ce.Path, ce.Line, bytes.Count(data, []byte{'\n'})+1, err)
			}
			if ce.Field != "" && ce.Field != CurveEpisode && ce.Field != CurveReturn && !strings.Contains(string(data), ce.Field) {
				t.Fatalf("err names field %q, not in the input: %v", ce.Field, err)
			}
			return
		}
		if len(c.Points) > bytes.Count(data, []byte{'\n'})+1 {
			t.Fatalf("%d points from %d lines", len(c.Points), bytes.Count(data, []byte{'\n'})+1)
		}
		var w bytes.Buffer
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		w.WriteString("return,loss,episode,epsilon,valid_return,decisions\n")
		for _, p := range c.Points {
			if !finite(p.Return) {
				t.Fatalf("return %v read", p.Return)
			}
			w.WriteString(strings.Join([]string{g(p.Return), g(p.Loss), strconv.Itoa(p.Episode), g(p.Epsilon),
				g(p.ValidReturn), g(p.Decisions)}, ",") + "\n")
		}
		c2, err := ReadCurve(&w, "rewritten.csv")
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if !samePoints(c.Points, c2.Points) {
			t.Fatalf("round trip\n%+v\n%+v", c.Points, c2.Points)
		}
		fig := DQNFigure(&DQNModel{Policy: "dqn:fuzz", Dir: "fuzz", Episodes: len(c.Points), Curve: c})
		ps, err := newPlots(&fig)
		if err != nil {
			t.Fatalf("figure: %v", err)
		}
		if _, err := encode(ps, 4, 4, "svg"); err != nil {
			t.Fatalf("figure: %v", err)
		}
	})
}
