package reports

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/internal/golden"
	"github.com/mirage-hpc/mirage/train"
)

// writeHandPredictions writes a tiny `mirage predict` output: four rows,
// r = 1, -2, 0.5 and 12 h, predicted as pred; labels false drops label_r_sec.
func writeHandPredictions(t *testing.T, name, model string, pred []float32, labels bool) string {
	t.Helper()
	s := &features.Samples{
		WindowID:   []int32{0, 1, 2, 3},
		ChainNodes: []int32{1, 1, 1, 1},
		ProbeTime:  []int64{1_700_000_000, 1_700_043_200, 1_700_086_400, 1_700_129_600},
	}
	if labels {
		s.LabelRSec = []int64{3600, -7200, 1800, 12 * 3600}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := train.WritePredictions(path, s, pred, model); err != nil {
		t.Fatal(err)
	}
	return path
}

func handPredictions(t *testing.T) []string {
	return []string{
		writeHandPredictions(t, "forest.parquet", "models/forest sha256:abc", []float32{1.5, -1, 0.5, 6}, true),
		writeHandPredictions(t, "xgb.parquet", "models/xgboost sha256:def", []float32{0, -2, 2, 13}, true),
	}
}

func TestPredictionFigure_Golden(t *testing.T) {
	var preds []train.Predictions
	for _, path := range handPredictions(t) {
		p, err := train.ReadPredictions(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, p)
	}
	if preds[0].ModelDir != "models/forest" || len(preds[0].ActualH) != 4 || preds[0].ActualH[1] != -2 {
		t.Fatalf("read %+v", preds[0])
	}
	f := predictionFigure(preds, []string{"forest", "xgboost"})
	// forest: |0.5| + |1| + 0 + |6| = 7.5 / 4; xgboost: 1 + 0 + 1.5 + 1 = 3.5 / 4.
	for _, want := range []string{"forest: MAE 1.88 h over 4 rows", "xgboost: MAE 0.88 h over 4 rows"} {
		if !strings.Contains(f.Caption, want) {
			t.Errorf("caption %q lacks %q", f.Caption, want)
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "predictions.golden.json"), append(b, '\n'))
}

func TestRender_Predictions(t *testing.T) {
	dir := writeEval(t)
	out := filepath.Join(t.TempDir(), "report")
	rep, err := Render(context.Background(), dir, out, Options{Predictions: handPredictions(t),
		PredictionsNote: "Made on the training samples."})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"predicted-vs-actual.png", "predicted-vs-actual.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	page, err := os.ReadFile(rep.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pageProblems(page, out) {
		t.Error("report.html: " + p)
	}
	if n := strings.Count(string(page), `src="data:image/png;base64,`); n != 5 {
		t.Errorf("inlined figures: %d, want 5", n)
	}
	for _, want := range []string{"Predicted vs actual r.", "MAE 1.88 h over 4 rows", "Made on the training samples."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "Predicted vs actual r is not drawn") {
		t.Error("report.html still notes the figure as absent")
	}
}

// TestPredictionLabel_ByDigest: a predictions file names its model by its
// directory's base name and digest (mirage predict, pipeline predict
// stages), not its path; it is labelled as the evaluated model with that
// digest, wherever the report runs from.
func TestPredictionLabel_ByDigest(t *testing.T) {
	labels := NewLabels([]string{"xgboost:runs/a/model", "forest:runs/b/model"})
	models := []ModelDir{
		{Policy: "xgboost:runs/a/model", Dir: "/nowhere/a/model", modelSHA256: "abc"},
		{Policy: "forest:runs/b/model", Dir: "/nowhere/b/model", modelSHA256: "def"},
	}
	for _, tt := range []struct{ model, want string }{
		{"model sha256:def", labels.Label("forest:runs/b/model")},
		{"model sha256:abc", labels.Label("xgboost:runs/a/model")},
		{"other sha256:999", "other"},
	} {
		p := train.Predictions{Path: "p.parquet", Model: tt.model}
		p.ModelDir, _, _ = strings.Cut(tt.model, " sha256:")
		if got := predictionLabel(p, models, labels); got != tt.want {
			t.Errorf("%s: label %q, want %q", tt.model, got, tt.want)
		}
	}
}

// TestPredictionFigure_Binned: many samples are drawn as binned medians
// with quartile whiskers, never one point each.
func TestPredictionFigure_Binned(t *testing.T) {
	p := train.Predictions{}
	for i := range 10000 {
		a := float64(i%200)/10 - 10
		p.ActualH, p.PredH = append(p.ActualH, a), append(p.PredH, a/2+float64(i%7)/7)
	}
	f := predictionFigure([]train.Predictions{p}, []string{"m"})
	n := 0
	for _, s := range f.Series {
		n += len(s.X)
		if len(s.X) > predictionBins {
			t.Errorf("series %q (%s) has %d points, want at most %d bins", s.Label, s.Kind, len(s.X), predictionBins)
		}
	}
	if n == 0 {
		t.Fatal("nothing drawn")
	}
	var med *Series
	for i := range f.Series {
		if f.Series[i].Label == "m" {
			med = &f.Series[i]
		}
	}
	if med == nil || len(med.X) < 10 {
		t.Fatalf("medians %+v, want a line of at least 10 bins", med)
	}
	for i := range med.X { // the median prediction of a bin is about half its actual r
		if want := med.X[i]/2 + 0.43; math.Abs(med.Y[i]-want) > 0.5 {
			t.Errorf("bin at %g: median %g, want about %g", med.X[i], med.Y[i], want)
		}
	}
}
