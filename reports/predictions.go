package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

// MetaModel is the predictions file's key-value metadata naming the model
// (train.WritePredictions: "DIR sha256:HEX").
const MetaModel = "mirage.model"

// Predictions is one `mirage predict` output: actual and predicted r in
// hours, one pair per labelled row.
type Predictions struct {
	// Label names the series: "KIND:DIR" when DIR holds a manifest, else
	// DIR (from the mirage.model metadata), else the file's name.
	Label string `json:"label"`
	// Path is the file read.
	Path    string    `json:"path"`
	ActualH []float64 `json:"actual_h"`
	PredH   []float64 `json:"predicted_h"`
}

// ReadPredictions reads a `mirage predict` output. It needs the
// label_r_sec column (samples with labels).
func ReadPredictions(ctx context.Context, path string) (Predictions, error) {
	p := Predictions{Path: path, Label: filepath.Base(path)}
	f, err := os.Open(path)
	if err != nil {
		return p, fmt.Errorf("read predictions: %w", err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return p, fmt.Errorf("read predictions %s: %w", path, err)
	}
	defer pf.Close()
	if v := pf.MetaData().KeyValueMetadata().FindValue(MetaModel); v != nil && *v != "" {
		p.Label = modelLabel(*v)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, memory.DefaultAllocator)
	if err != nil {
		return p, fmt.Errorf("read predictions %s: %w", path, err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return p, fmt.Errorf("read predictions %s: %w", path, err)
	}
	defer tbl.Release()
	col := func(name string, typ arrow.DataType) (*arrow.Chunked, error) {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("read predictions %s: no column %s (a mirage predict output on labelled samples?)", path, name)
		}
		c := tbl.Column(idx[0])
		if !arrow.TypeEqual(c.DataType(), typ) {
			return nil, fmt.Errorf("read predictions %s: column %s is %s, want %s", path, name, c.DataType(), typ)
		}
		return c.Data(), nil
	}
	lab, err := col(features.ColLabelR, arrow.PrimitiveTypes.Int64)
	if err != nil {
		return p, err
	}
	pred, err := col(train.ColPredictedR, arrow.PrimitiveTypes.Float64)
	if err != nil {
		return p, err
	}
	for _, c := range lab.Chunks() {
		a := c.(*array.Int64)
		for i := range a.Len() {
			if a.IsValid(i) {
				p.ActualH = append(p.ActualH, float64(a.Value(i))/3600)
			} else {
				p.ActualH = append(p.ActualH, math.NaN())
			}
		}
	}
	for _, c := range pred.Chunks() {
		a := c.(*array.Float64)
		for i := range a.Len() {
			if a.IsValid(i) {
				p.PredH = append(p.PredH, a.Value(i))
			} else {
				p.PredH = append(p.PredH, math.NaN())
			}
		}
	}
	// Drop rows missing either value.
	k := 0
	for i := range p.ActualH {
		if !math.IsNaN(p.ActualH[i]) && !math.IsNaN(p.PredH[i]) {
			p.ActualH[k], p.PredH[k] = p.ActualH[i], p.PredH[i]
			k++
		}
	}
	p.ActualH, p.PredH = p.ActualH[:k], p.PredH[:k]
	return p, nil
}

// modelLabel turns the mirage.model metadata "DIR sha256:HEX" into
// "KIND:DIR" (KIND from DIR's manifest when readable) or "DIR".
func modelLabel(meta string) string {
	dir, _, _ := strings.Cut(meta, " sha256:")
	if b, err := os.ReadFile(filepath.Join(dir, train.ManifestFile)); err == nil {
		var man train.Manifest
		if json.Unmarshal(b, &man) == nil && man.Kind != "" {
			return man.Kind + ":" + dir
		}
	}
	return dir
}

// PredictionFigureName is the predicted-vs-actual figure's file stem.
const PredictionFigureName = "predicted-vs-actual"

// predictionFigure draws actual vs predicted r for each set, with y = x.
// The caption gives each set's MAE and count.
func predictionFigure(preds []Predictions) Figure {
	f := Figure{Name: PredictionFigureName, Title: "Predicted vs actual r", XLabel: "actual r (h)",
		YLabel: "predicted r (h)"}
	lo, hi := math.Inf(1), math.Inf(-1)
	var parts []string
	for _, p := range preds {
		s := Series{Label: p.Label, Kind: "points"}
		var mae float64
		for i := range p.ActualH {
			a, q := p.ActualH[i], p.PredH[i]
			s.X, s.Y = append(s.X, round(a)), append(s.Y, round(q))
			mae += math.Abs(q - a)
			lo, hi = min(lo, a, q), max(hi, a, q)
		}
		if n := len(p.ActualH); n > 0 {
			parts = append(parts, fmt.Sprintf("%s: MAE %.2f h over %d rows", p.Label, mae/float64(n), n))
		} else {
			parts = append(parts, fmt.Sprintf("%s: no labelled rows", p.Label))
		}
		f.Series = append(f.Series, s)
	}
	if lo <= hi {
		f.Series = append(f.Series, Series{Label: "y = x", Kind: "line", X: []float64{round(lo), round(hi)},
			Y: []float64{round(lo), round(hi)}})
	}
	f.Caption = "One point per sample (r > 0: interruption, r < 0: overlap); the line is y = x. " +
		strings.Join(parts, "; ") + "."
	return f
}
