package train

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mirage-hpc/mirage/features"
)

// MetaModel is the predictions file's key-value metadata key naming the
// model (WritePredictions' model argument, "DIR sha256:HEX" from mirage
// predict).
const MetaModel = "mirage.model"

// Predictions is a WritePredictions file read back, restricted to the
// labelled rows: actual and predicted r, one pair per row with both.
type Predictions struct {
	// Path is the file read.
	Path string `json:"path"`
	// Model is the mirage.model metadata ("" when absent); ModelDir is its
	// directory part (before " sha256:"), as mirage predict was given it.
	Model    string `json:"model,omitempty"`
	ModelDir string `json:"model_dir,omitempty"`
	// ActualH is label_r_sec in hours; PredH is predicted_r_hours. Rows
	// where either is null are left out.
	ActualH []float64 `json:"actual_h"`
	PredH   []float64 `json:"predicted_h"`
}

// ReadPredictions reads a WritePredictions file. It needs the label_r_sec
// column (predictions on labelled samples).
func ReadPredictions(ctx context.Context, path string) (Predictions, error) {
	p := Predictions{Path: path}
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
	if v := pf.MetaData().KeyValueMetadata().FindValue(MetaModel); v != nil {
		p.Model = *v
		p.ModelDir, _, _ = strings.Cut(*v, " sha256:")
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
	pred, err := col(ColPredictedR, arrow.PrimitiveTypes.Float64)
	if err != nil {
		return p, err
	}
	for _, c := range lab.Chunks() {
		a := c.(*array.Int64)
		for i := range a.Len() {
			v := math.NaN()
			if a.IsValid(i) {
				v = float64(a.Value(i)) / 3600
			}
			p.ActualH = append(p.ActualH, v)
		}
	}
	for _, c := range pred.Chunks() {
		a := c.(*array.Float64)
		for i := range a.Len() {
			v := math.NaN()
			if a.IsValid(i) {
				v = a.Value(i)
			}
			p.PredH = append(p.PredH, v)
		}
	}
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
