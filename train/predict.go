package train

import (
	"fmt"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mirage-hpc/mirage/features"
)

// ColPredictedR is the predictions column: r in hours, as the model's
// target (manifest "r_hours"), float64.
const ColPredictedR = "predicted_r_hours"

// WritePredictions writes one row per sample of s to path as Parquet:
// window_id, chain_nodes, probe_time, label_r_sec (only when s has
// labels) and predicted_r_hours (pred). The key-value metadata "mirage.model"
// holds model, a description of the artifact (its directory or digest).
// It writes a temporary file in path's directory and renames it.
func WritePredictions(path string, s *features.Samples, pred []float32, model string) (err error) {
	if len(pred) != s.Len() {
		return fmt.Errorf("write predictions: %d predictions for %d rows", len(pred), s.Len())
	}
	labels := len(s.LabelRSec) == s.Len()
	fields := []arrow.Field{
		{Name: features.ColWindowID, Type: arrow.PrimitiveTypes.Int32},
		{Name: features.ColChainNodes, Type: arrow.PrimitiveTypes.Int32},
		{Name: features.ColProbeTime, Type: arrow.PrimitiveTypes.Int64},
	}
	if labels {
		fields = append(fields, arrow.Field{Name: features.ColLabelR, Type: arrow.PrimitiveTypes.Int64})
	}
	fields = append(fields, arrow.Field{Name: ColPredictedR, Type: arrow.PrimitiveTypes.Float64})
	md := arrow.NewMetadata([]string{"mirage.model"}, []string{model})
	schema := arrow.NewSchema(fields, &md)

	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(s.WindowID, nil)
	b.Field(1).(*array.Int32Builder).AppendValues(s.ChainNodes, nil)
	b.Field(2).(*array.Int64Builder).AppendValues(s.ProbeTime, nil)
	n := 3
	if labels {
		b.Field(n).(*array.Int64Builder).AppendValues(s.LabelRSec, nil)
		n++
	}
	pb := b.Field(n).(*array.Float64Builder)
	pb.Reserve(len(pred))
	for _, p := range pred {
		pb.UnsafeAppend(float64(p))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	return atomicfile.Write(path, func(out io.Writer) error {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
		fw, err := pqarrow.NewFileWriter(schema, out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			return err
		}
		return fw.Close()
	})
}
