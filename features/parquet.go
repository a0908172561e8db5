package features

import (
	"encoding/json"
	"github.com/mirage-hpc/mirage/internal/atomicfile"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/mirage-hpc/mirage/sim"
)

// Key-value metadata keys of a samples Parquet file.
const (
	MetaFeatures      = "mirage.features"               // JSON array of Feature
	MetaSchemaVersion = "mirage.feature_schema_version" // decimal
	MetaSimConfig     = "mirage.sim_config"             // JSON of sim.Config
	MetaProtocol      = "mirage.protocol"
	MetaTraceDigest   = "mirage.trace_sha256" // hex SHA-256 of the trace file
	MetaSeed          = "mirage.seed"         // decimal
	MetaOptions       = "mirage.options"      // JSON of the protocol's options
	// MetaRuntimeModel and MetaRuntimeSHA256 name the run-time model of
	// the ModelEstimateName column (its directory and model file's hex
	// SHA-256); present only with that column.
	MetaRuntimeModel  = "mirage.runtime_model"
	MetaRuntimeSHA256 = "mirage.runtime_model_sha256"
)

// Fixed columns of a samples file, before the features; the labels come
// after them.
const (
	ColWindowID    = "window_id"      // int32
	ColWindowStart = "window_start"   // int64, Unix seconds
	ColChainNodes  = "chain_nodes"    // int32
	ColProbeTime   = "probe_time"     // int64, Unix seconds
	ColLabelR      = "label_r_sec"    // int64
	ColLabelWait   = "label_wait_sec" // int64
	ColWeight      = "weight"         // float64, optional (absent: 1)
)

// FileMeta is what WriteParquet stores besides the samples.
type FileMeta struct {
	Protocol    string
	TraceDigest string // hex SHA-256 of the trace file
	Seed        uint64
	SimConfig   sim.Config
	// Options is any JSON-encodable description of the protocol.
	Options any
	// RuntimeModel and RuntimeSHA256 are the run-time model of the
	// ModelEstimateName column (RunTimes.Dir and SHA256); empty without it.
	RuntimeModel, RuntimeSHA256 string
}

// rowGroupRows is the number of rows per record batch and row group.
const rowGroupRows = 64 * 1024

// WriteParquet writes s to path as Parquet, from Arrow record batches:
// the columns window_id, window_start, chain_nodes, probe_time, one
// float64 column per feature (s.Names), label_r_sec, label_wait_sec and,
// when s.Weight is set, weight,
// with the key-value metadata Meta* (feature names and units, schema
// version, simulator configuration, protocol, trace digest, seed). It
// writes a temporary file in path's directory and renames it, so path is
// either the old file or the complete new one.
func WriteParquet(path string, s *Samples, meta FileMeta) (err error) {
	md, err := metadata(s, meta)
	if err != nil {
		return err
	}
	fields := []arrow.Field{
		{Name: ColWindowID, Type: arrow.PrimitiveTypes.Int32},
		{Name: ColWindowStart, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColChainNodes, Type: arrow.PrimitiveTypes.Int32},
		{Name: ColProbeTime, Type: arrow.PrimitiveTypes.Int64},
	}
	for _, n := range s.Names {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields,
		arrow.Field{Name: ColLabelR, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: ColLabelWait, Type: arrow.PrimitiveTypes.Int64})
	if s.Weight != nil {
		fields = append(fields, arrow.Field{Name: ColWeight, Type: arrow.PrimitiveTypes.Float64})
	}
	schema := arrow.NewSchema(fields, &md)

	return atomicfile.Write(path, func(out io.Writer) error {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithMaxRowGroupLength(rowGroupRows))
		fw, err := pqarrow.NewFileWriter(schema, out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		mem := memory.DefaultAllocator
		for lo := 0; lo < s.Len() || lo == 0; lo += rowGroupRows {
			hi := min(lo+rowGroupRows, s.Len())
			rec := batch(mem, schema, s, lo, hi)
			err := fw.Write(rec)
			rec.Release()
			if err != nil {
				return err
			}
			if hi == s.Len() {
				break
			}
		}
		return fw.Close()
	})
}

func metadata(s *Samples, meta FileMeta) (arrow.Metadata, error) {
	feats := make([]Feature, len(s.Names))
	for i, n := range s.Names {
		feats[i] = Feature{Name: n}
		for _, f := range schema {
			if f.Name == n {
				feats[i].Unit = f.Unit
			}
		}
		for _, f := range wideSchema {
			if f.Name == n {
				feats[i].Unit = f.Unit
			}
		}
		if n == ModelEstimateName {
			feats[i].Unit = ModelEstimateUnit
		}
	}
	fj, err := json.Marshal(feats)
	if err != nil {
		return arrow.Metadata{}, err
	}
	cj, err := json.Marshal(meta.SimConfig)
	if err != nil {
		return arrow.Metadata{}, err
	}
	keys := []string{MetaFeatures, MetaSchemaVersion, MetaSimConfig, MetaProtocol, MetaTraceDigest, MetaSeed}
	vals := []string{string(fj), strconv.Itoa(FeatureSchemaVersion), string(cj), meta.Protocol, meta.TraceDigest,
		strconv.FormatUint(meta.Seed, 10)}
	if meta.Options != nil {
		oj, err := json.Marshal(meta.Options)
		if err != nil {
			return arrow.Metadata{}, err
		}
		keys, vals = append(keys, MetaOptions), append(vals, string(oj))
	}
	if meta.RuntimeModel != "" || meta.RuntimeSHA256 != "" {
		keys = append(keys, MetaRuntimeModel, MetaRuntimeSHA256)
		vals = append(vals, meta.RuntimeModel, meta.RuntimeSHA256)
	}
	return arrow.NewMetadata(keys, vals), nil
}

// batch builds the record batch of rows [lo, hi).
func batch(mem memory.Allocator, schema *arrow.Schema, s *Samples, lo, hi int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues(s.WindowID[lo:hi], nil)
	b.Field(1).(*array.Int64Builder).AppendValues(s.WindowStart[lo:hi], nil)
	b.Field(2).(*array.Int32Builder).AppendValues(s.ChainNodes[lo:hi], nil)
	b.Field(3).(*array.Int64Builder).AppendValues(s.ProbeTime[lo:hi], nil)
	for f := range s.Features {
		b.Field(4+f).(*array.Float64Builder).AppendValues(s.Features[f][lo:hi], nil)
	}
	n := 4 + len(s.Features)
	b.Field(n).(*array.Int64Builder).AppendValues(s.LabelRSec[lo:hi], nil)
	b.Field(n+1).(*array.Int64Builder).AppendValues(s.LabelWaitSec[lo:hi], nil)
	if s.Weight != nil {
		b.Field(n+2).(*array.Float64Builder).AppendValues(s.Weight[lo:hi], nil)
	}
	return b.NewRecordBatch()
}
